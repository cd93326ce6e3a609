import MRTDCore
import Testing

@testable import MRTDReaders

/// docs/field-quirks.md, "Readers": what a reader's name and its driver's report decide.
@Suite struct ReaderProfileTests {
    @Test func anACR122UCarriesShortAPDUsOnlyWhateverItsDriverClaims() {
        let profile = ReaderProfile.decide(readerName: "ACS ACR122U PICC Interface 00 00", probed: .extended)
        #expect(profile.name == "ACR122U")
        #expect(profile.capabilities == .shortOnly)
        #expect(ReaderCapabilityProbe.decide(readerName: "ACS ACR122U PICC Interface 00 00", probed: (.extended, .tlvProperties))
                == (.shortOnly, .profile))
    }

    @Test func anSCL3711GetsShortAPDUsAndShortAnswers() {
        // LudovicRousseau/PCSC#106: long messages fail on the SCL3711.
        let profile = ReaderProfile.decide(readerName: "SCM Microsystems Inc. SCL3711 reader & NFC device 0", probed: nil)
        #expect(profile.name == "SCL3711")
        #expect(!profile.capabilities.extendedLength)
        #expect(profile.capabilities.maxResponseLength == 162, "answers of at most 160 data bytes")
    }

    @Test func aPN53xReaderIsShortOnlyAndItsTimeoutWaitsForSlowChips() {
        for name in ["pn532_uart:/dev/ttyUSB0", "NXP PN533 0", "IFD-NFC pn53x"] {
            let profile = ReaderProfile.decide(readerName: name, probed: nil, configuredTimeout: .milliseconds(300))
            #expect(profile.name == "PN53x", "\(name)")
            #expect(profile.capabilities == .shortOnly)
            #expect(profile.exchangeTimeout == ReaderProfile.minimumExchangeTimeout, "a 300 ms timeout would cut off 1.5 s READ BINARY answers")
        }
    }

    @Test func acsCCIDReadersThatDoNotPassExtendedAPDUsStayShort() {
        // acshk/acsccid#42 (ACR1281 1S Dual), acshk/acsccid#15 (ACR1252 Dual).
        for name in ["ACS ACR1281 1S Dual Reader [ACR1281 1S Dual Reader PICC] 00 00", "ACS ACR1252 Dual Reader [ACR1252 Dual Reader PICC] 00 00"] {
            let profile = ReaderProfile.decide(readerName: name, probed: .extended)
            #expect(profile.name == "ACS CCID (acsccid)")
            #expect(!profile.capabilities.extendedLength, "\(name)")
        }
    }

    @Test func anUnknownReaderFollowsItsDriversReport() {
        // OpenSC#802: only readers advertising extended length get extended APDUs.
        let short = ReaderProfile.decide(readerName: "Generic CCID Reader 00 00", probed: .shortOnly)
        #expect(short.name == "probed" && short.capabilities == .shortOnly)
        let long = ReaderProfile.decide(readerName: "Generic CCID Reader 00 00", probed: .extended)
        #expect(long.name == "probed" && long.capabilities == .extended)
        #expect(ReaderCapabilityProbe.decide(readerName: "Generic CCID Reader 00 00", probed: (.shortOnly, .tlvProperties))
                == (.shortOnly, .tlvProperties))
    }

    @Test func aReaderThatSaysNothingIsTriedWithExtendedLength() {
        let profile = ReaderProfile.decide(readerName: "Virtual PCD 00 00", probed: nil)
        #expect(profile.name == "unknown" && profile.capabilities == .extended && !profile.isKnownByName)
        #expect(ReaderCapabilityProbe.decide(readerName: "Virtual PCD 00 00", probed: nil) == (.extended, .assumed))
    }

    @Test func aKnownReaderKeepsWhatItsDriverKnowsToBeSmaller() {
        let tiny = TransportCapabilities(extendedLength: false, maxCommandLength: 200, maxResponseLength: 130)
        let profile = ReaderProfile.decide(readerName: "SCL3711", probed: tiny)
        #expect(profile.capabilities == tiny)
    }

    @Test func timeoutsNeverFallBelowTheFloorAndLongerOnesAreKept() {
        #expect(ReaderProfile.decide(readerName: "x", probed: nil, configuredTimeout: .seconds(1)).exchangeTimeout == .seconds(5))
        #expect(ReaderProfile.decide(readerName: "x", probed: nil, configuredTimeout: .seconds(30)).exchangeTimeout == .seconds(30))
        #expect(LibNFCDevice.minimumTimeoutMilliseconds == 5000)
    }
}
