import MRTDCore
import MRTDTesting
import Testing

@testable import MRTDReaders

@Suite struct PCSCStatusTests {
    @Test(arguments: [
        (PCSCStatus.removedCard, TransportError.cardRemoved),
        (.noSmartcard, .cardRemoved),
        (.unpoweredCard, .cardRemoved),
        (.timeout, .timeout),
    ])
    func cardAndTimeoutCodesMapOntoTheirTransportErrors(_ status: PCSCStatus, _ expected: TransportError) {
        #expect(status.transportError == expected)
    }

    @Test(arguments: [PCSCStatus.noService, .serviceStopped, .invalidHandle, .readerUnavailable, .unknownReader])
    func serviceAndReaderLossAreReaderUnavailable(_ status: PCSCStatus) {
        guard case .readerUnavailable(let why) = status.transportError else {
            Issue.record("\(status.name) maps to \(status.transportError)")
            return
        }
        #expect(why.contains(status.name))
    }

    @Test func otherCodesAreServiceFailuresNamingTheCode() {
        guard case .serviceFailure(let why) = PCSCStatus.sharingViolation.transportError else {
            Issue.record("sharing violation is not a service failure")
            return
        }
        #expect(why.contains("SCARD_E_SHARING_VIOLATION"))
    }

    @Test func descriptionsComeFromPcscLiteAndNameTheCode() {
        #expect(PCSCStatus.removedCard.description.lowercased().contains("removed"))
        #expect(PCSCStatus.removedCard.description.contains("SCARD_W_REMOVED_CARD"))
        #expect(PCSCStatus(rawValue: 0x8010_0077).name == "0x80100077")
    }

    @Test func ambiguousFailuresAreTheOnesThatNeedARemovalCheck() {
        #expect(PCSCStatus.notTransacted.isAmbiguousExchangeFailure)
        #expect(PCSCStatus.commError.isAmbiguousExchangeFailure)
        #expect(!PCSCStatus.removedCard.isAmbiguousExchangeFailure)
        #expect(PCSCStatus.removedCard.meansCardGone && PCSCStatus.noService.meansServiceLost)
    }

    @Test func multiStringsSplitOnNUL() {
        let chars: [CChar] = Array("Reader A 00 00\0Reader B 01 00\0\0".utf8CString.dropLast()).map { $0 }
        #expect(PCSCContext.multiString(chars) == ["Reader A 00 00", "Reader B 01 00"])
        #expect(PCSCContext.multiString([CChar]([0, 0])) == [])
    }
}

@Suite struct ReaderCapabilityProbeTests {
    @Test func theTLVPropertiesIoctlIsFoundInTheFeatureList() {
        // FEATURE_VERIFY_PIN_DIRECT (06) and FEATURE_GET_TLV_PROPERTIES (12), big-endian codes.
        let features: [UInt8] = [0x06, 0x04, 0x42, 0x33, 0x00, 0x06, 0x12, 0x04, 0x42, 0x33, 0x00, 0x12]
        #expect(ReaderCapabilityProbe.controlCode(of: 0x12, in: features) == 0x4233_0012)
        #expect(ReaderCapabilityProbe.controlCode(of: 0x0A, in: features) == nil)
        #expect(ReaderCapabilityProbe.controlCode(of: 0x12, in: [0x12, 0x04, 0x42]) == nil)
    }

    @Test func dwMaxAPDUDataSizeIsReadLittleEndian() {
        // wLcdLayout (01, 2 bytes), then dwMaxAPDUDataSize (0A) = 0x010000 + ... little-endian.
        let properties: [UInt8] = [0x01, 0x02, 0x00, 0x00, 0x0A, 0x04, 0x0A, 0x01, 0x01, 0x00]
        #expect(ReaderCapabilityProbe.property(0x0A, in: properties) == 0x0001_010A)
        #expect(ReaderCapabilityProbe.property(0x0B, in: properties) == nil)
    }

    @Test(arguments: [(UInt(0), false, 261), (261, false, 261), (65_544, true, 65_544), (1_000_000, true, 65_544)])
    func capabilitiesFollowTheMaximumAPDUSize(_ size: UInt, _ extended: Bool, _ maxCommand: Int) {
        let caps = ReaderCapabilityProbe.capabilities(maxAPDUDataSize: size)
        #expect(caps.extendedLength == extended)
        #expect(caps.maxCommandLength == maxCommand)
    }

    @Test func aSessionOffersExtendedLengthOnlyWhenReaderAndChipBothDo() {
        let says = VPCDCardATR.extended, silent: [UInt8] = [0x3B, 0x80, 0x80, 0x01, 0x01]
        #expect(PCSCConnection.effectiveCapabilities(reader: .extended, atr: says).extendedLength)
        #expect(!PCSCConnection.effectiveCapabilities(reader: .extended, atr: silent).extendedLength)
        #expect(!PCSCConnection.effectiveCapabilities(reader: .shortOnly, atr: says).extendedLength)
        #expect(!PCSCConnection.effectiveCapabilities(reader: .extended, atr: [0x00]).extendedLength)
    }
}

enum VPCDCardATR {
    static let extended = VPCDCard.contactlessATR(extendedLength: true)
}
