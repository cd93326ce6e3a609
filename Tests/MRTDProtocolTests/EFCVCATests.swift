import MRTDCore
import MRTDSimulation
import MRTDVerification
import Testing

@testable import MRTDProtocol

/// DG14's TerminalAuthenticationInfo and where it places EF.CVCA (BSI TR-03110-3 §A.1.1.2; BSI
/// TR-03105-5.1 ISO7816_E_22, E_23): the LDS fixes FID 011C / SFI 1C, a DG14 saying otherwise stops TA.
@Suite struct TerminalAuthenticationInfoTests {
    static let ta: [UInt8] = [0x04, 0x00, 0x7F, 0x00, 0x07, 0x02, 0x02, 0x02]

    static func infos(fileID: [UInt8]?) throws -> SecurityInfos {
        var fields = [TLV.encode(tag: 0x06, value: ta), TLV.encode(tag: 0x02, value: [0x01])]
        if let fileID { fields.append(TLV.encode(tag: 0x30, value: fileID)) }
        return try SecurityInfos(derEncoded: TLV.encode(tag: 0x31, value: TLV.encode(tag: 0x30, children: fields)))
    }

    static func fid(_ fid: [UInt8], _ sfid: [UInt8]? = nil) -> [UInt8] {
        TLV.encode(tag: 0x04, value: fid) + (sfid.map { TLV.encode(tag: 0x04, value: $0) } ?? [])
    }

    @Test func anInfoThatAgreesOrNamesNoFileIsFine() throws {
        #expect(TerminalAuthentication.efCVCALocationMismatch(in: try Self.infos(fileID: nil)) == nil)
        #expect(TerminalAuthentication.efCVCALocationMismatch(in: try Self.infos(fileID: Self.fid([0x01, 0x1C]))) == nil)
        #expect(TerminalAuthentication.efCVCALocationMismatch(in: try Self.infos(fileID: Self.fid([0x01, 0x1C], [0x1C]))) == nil)
        #expect(TerminalAuthentication.efCVCALocationMismatch(in: nil) == nil)
    }

    @Test func anotherFileOrShortFileIdentifierIsNamed() throws {
        let fid = TerminalAuthentication.efCVCALocationMismatch(in: try Self.infos(fileID: Self.fid([0x01, 0x1D], [0x1C])))
        #expect(fid?.contains("FID 011D") == true)
        let sfi = TerminalAuthentication.efCVCALocationMismatch(in: try Self.infos(fileID: Self.fid([0x01, 0x1C], [0x1D])))
        #expect(sfi?.contains("SFI 1D") == true)
        let location = TerminalAuthentication.efCVCALocation(
            terminalAuthenticationInfo: TLV.encode(tag: 0x30, children: [
                TLV.encode(tag: 0x06, value: Self.ta), TLV.encode(tag: 0x02, value: [0x01]), TLV.encode(tag: 0x30, value: Self.fid([0x01, 0x1D]))]))
        #expect(location?.fid == [0x01, 0x1D] && location?.sfid == nil)
    }
}

/// EF.CVCA is read whole: it is no single TLV object but one or two CARs and zero padding, so its
/// first header does not end the read (BSI TR-03105-5.1 ISO7816_E_10: before, only the first CAR
/// was read, and a terminal holding a chain for the second trust point failed `terminalTrustPointUnknown`).
@Suite struct EFCVCAReadTests {
    @Test func aChainForTheSecondTrustPointOfEFCVCAIsUsed() async throws {
        let first = try EACTestSet.make(country: "XA"), second = try EACTestSet.make(country: "XB")
        var document = SimulatedDocument()
        document.authentication = try AuthenticationFixture.make(chipAuthentication: [.init(domainParameterID: 13, cipher: .aes128)])
        var chip = try document.chip()
        let eac = VirtualEAC(trustPoints: [first.cvca, second.cvca], currentDate: .init(year: 2026, month: 1, day: 1))
        chip.files[.cvca] = eac.efCVCA
        chip.eac = eac
        var options = ReadOptions(accessKey: .mrz(try SimulatedDocument.specimenKey()), dataGroups: [1, 2, 3, 4, 14])
        options.terminal = second.credentials()
        let read = await DocumentReader.read(transport: VirtualChip(configuration: chip), options: options)
        let ta = try #require(read.result.checks.terminalAuthentication)
        #expect(ta.result == .passed, "\(ta)")
        #expect(ta.chain?.first == "XBCVCA00001")
        #expect(read.files[.dg(3)] != nil && read.files[.dg(4)] != nil)
    }

    @Test func paddingAfterTheCARsIsReadAndAccepted() throws {
        let file = TerminalAuthentication.efCVCA(trustPoints: ["XACVCA00001", "XBCVCA00001"])
        #expect(file.count == 36)
        #expect(try TerminalAuthentication.trustPoints(efCVCA: file) == ["XACVCA00001", "XBCVCA00001"])
    }
}
