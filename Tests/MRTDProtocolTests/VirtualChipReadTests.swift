import MRTDCore
import MRTDCrypto
import MRTDTesting
import Testing

@testable import MRTDProtocol
import MRTDSimulation
import MRTDTranscript

/// Reads of the virtual specimen over BAC in the chip configurations real documents show.
@Suite struct VirtualChipReadTests {
    static let specimen = try! SpecimenDocument.make()
    static let key = try! MRZ(SpecimenDocument.erikssonMRZ).accessKey

    struct ChipSetup: Sendable, CustomTestStringConvertible {
        var name: String
        var extendedLength: Bool
        var maxLe: Int?
        var rejectsMaximumLe = false
        var endOfFileStatus: StatusWord = .endOfFileReached
        var testDescription: String { name }
    }

    static let setups: [ChipSetup] = [
        .init(name: "extended length", extendedLength: true),
        .init(name: "extended length, 6700 to Le=0000", extendedLength: true, rejectsMaximumLe: true),
        .init(name: "extended length, EOF answered 9000", extendedLength: true, endOfFileStatus: .success),
        .init(name: "short, max Le DF", extendedLength: false, maxLe: 0xDF),
        .init(name: "short, max Le A0", extendedLength: false, maxLe: 0xA0),
        .init(name: "short, max Le 80", extendedLength: false, maxLe: 0x80),
        .init(name: "short, 6700 to Le=00", extendedLength: false, rejectsMaximumLe: true),
        .init(name: "short, EOF answered 9000", extendedLength: false, endOfFileStatus: .success),
    ]

    static func chip(_ setup: ChipSetup, files: [LDSFile: [UInt8]] = specimen.files,
                     configure: (inout VirtualChipConfiguration) -> Void = { _ in }) -> VirtualChip {
        var config = VirtualChipConfiguration(
            files: files, accessKey: key, extendedLength: setup.extendedLength, maxReadLength: setup.maxLe,
            rejectsMaximumLe: setup.rejectsMaximumLe, endOfFileStatus: setup.endOfFileStatus)
        configure(&config)
        return VirtualChip(configuration: config)
    }

    static var fileBytes: Int {
        [LDSFile.com, .sod, .dg(1), .dg(2)].reduce(0) { $0 + specimen.files[$1]!.count }
    }

    @Test(arguments: setups)
    func everyChipConfigurationYieldsIdenticalFiles(_ setup: ChipSetup) async throws {
        let chip = Self.chip(setup)
        let outcome = try await ChipSession(transport: chip, options: ReadOptions(accessKey: .mrz(Self.key), access: .bac)).run()
        for file in [LDSFile.com, .sod, .dg(1), .dg(2)] {
            #expect(outcome.files[file] == Self.specimen.files[file], "\(file) differs")
        }
        #expect(outcome.files.count == 4)
        #expect(outcome.access == .init(protocol: "BAC", password: "MRZ", cipher: "3DES"))
        let t = outcome.transport
        #expect(t.apdus == (await chip.exchangeCount))
        #expect(t.fileBytes == Self.fileBytes)
        if let maxLe = setup.maxLe { #expect(t.maxReadLength <= maxLe) }
        print("APDUs [\(setup.name)]: \(t.apdus) (\(t.readBinaryCommands) READ BINARY, \(Self.fileBytes) file bytes, "
            + "\(t.bytesSent) sent, \(t.bytesReceived) received, largest read \(t.maxReadLength))")
    }

    @Test func withExtendedLengthTheSpecimenTakesAtMost12APDUs() async throws {
        let outcome = try await ChipSession(
            transport: Self.chip(Self.setups[0]), options: ReadOptions(accessKey: .mrz(Self.key))).run()
        #expect(outcome.transport.apdus <= 12)
        #expect(outcome.transport.extendedLength)
        #expect(outcome.transport.readBinaryCommands == 4, "one READ BINARY per file")
    }

    @Test func chipsWithoutShortFileIdentifiersAreReadWithSelect() async throws {
        let chip = Self.chip(Self.setups[0]) { $0.shortFileIdentifiers = false }
        let outcome = try await ChipSession(transport: chip, options: ReadOptions(accessKey: .mrz(Self.key), access: .bac)).run()
        #expect(outcome.files[.dg(2)] == Self.specimen.files[.dg(2)])
        #expect(outcome.files.count == 4)
        // EF.ATR/INFO (SFI refused), one refused SFI read, then SELECT + READ BINARY per file.
        #expect(outcome.transport.apdus == 5 + 1 + 4 * 2)
        #expect(outcome.transport.adjustments.count == 1)
    }

    @Test func aReaderToldNotToUseShortFileIdentifiersSelectsEveryFile() async throws {
        let outcome = try await ChipSession(
            transport: Self.chip(Self.setups[0]),
            options: ReadOptions(accessKey: .mrz(Self.key), reader: .init(useShortFileIdentifiers: false), access: .bac)).run()
        // EF.ATR/INFO (SELECT: 6A82), then SELECT + READ BINARY per file.
        #expect(outcome.transport.apdus == 5 + 4 * 2)
        #expect(outcome.transport.adjustments.isEmpty)
    }

    @Test func withoutExtendedLengthTheSpecimenTakesAtMostOneAPDUPer223BytesPlus10() async throws {
        let outcome = try await ChipSession(
            transport: Self.chip(Self.setups[3]), options: ReadOptions(accessKey: .mrz(Self.key))).run()
        let bound = (Self.fileBytes + 0xDE) / 0xDF + 10
        #expect(outcome.transport.apdus <= bound)
        #expect(!outcome.transport.extendedLength)
    }

    @Test func aReaderPreferringShortAPDUsNeverSendsExtendedOnes() async throws {
        let outcome = try await ChipSession(
            transport: Self.chip(Self.setups[0]),
            options: ReadOptions(accessKey: .mrz(Self.key), reader: .init(preferExtendedLength: false))).run()
        #expect(!outcome.transport.extendedLength)
        #expect(outcome.transport.maxReadLength <= 0xDF)
        #expect(outcome.files[.dg(2)] == Self.specimen.files[.dg(2)])
    }

    @Test func aChipRefusingLe0000GetsAHeaderReadThenOneExactExtendedRead() async throws {
        let outcome = try await ChipSession(
            transport: Self.chip(Self.setups[1]), options: ReadOptions(accessKey: .mrz(Self.key), access: .bac)).run()
        // EF.ATR/INFO 1 (6A82) + 4 (AIDs, BAC) + 1 refused + EF.COM 1 + EF.SOD 2 + DG1 1 + DG2 2.
        #expect(outcome.transport.apdus == 12)
        #expect(outcome.transport.extendedLength)
        #expect(outcome.transport.adjustments.count == 1)
    }

    @Test func aShortOnlyChipAnswersExtendedAPDUsWith6700() async throws {
        let chip = Self.chip(Self.setups[3])
        #expect(chip.capabilities == .shortOnly)
        let extendedSelect = try CommandAPDU(ins: 0xA4, p1: 4, p2: 0x0C, data: ApplicationID.lds1).encoded(extended: true)
        #expect(await chip.process(extendedSelect) == [0x67, 0x00])
        let shortSelect = try CommandAPDU(ins: 0xA4, p1: 4, p2: 0x0C, data: ApplicationID.lds1).encoded()
        #expect(await chip.process(shortSelect) == [0x90, 0x00])
    }

    @Test func lengthAdjustmentsAreReported() async throws {
        let outcome = try await ChipSession(
            transport: Self.chip(Self.setups[4]), options: ReadOptions(accessKey: .mrz(Self.key))).run()
        #expect(outcome.transport.adjustments.count == 1, "6700 at 223 once, then 160 for the session")
        #expect(outcome.transport.maxReadLength == 0xA0)
    }

    @Test func aWrongMRZKeyIsReportedAsAccessDeniedAndNothingIsRead() async throws {
        let wrong = try MRZKey(documentNumber: "L898902C3", dateOfBirth: "740813", dateOfExpiry: "120415")
        let chip = Self.chip(Self.setups[0])
        let read = await DocumentReader.read(transport: chip, options: ReadOptions(accessKey: .mrz(wrong), access: .bac))
        #expect(read.result.status == .failed)
        #expect(read.result.error?.code == .accessDenied)
        #expect(read.result.error?.message.contains("access denied") == true)
        #expect(read.result.error?.message.contains("L898902C3") == false, "no MRZ data in messages")
        #expect(read.files.isEmpty)
        // EF.ATR/INFO (6A82), the two AIDs, GET CHALLENGE, EXTERNAL AUTHENTICATE.
        #expect(read.result.transport.apdus == 5)
    }

    @Test func aPACEOnlyChipRefusingBACIsReportedAsSuch() async throws {
        let chip = Self.chip(Self.setups[0]) { $0.bacRefusal = .referencedDataNotFound }
        await #expect(throws: ProtocolError.bacNotSupported(.referencedDataNotFound)) {
            _ = try await ChipSession(transport: chip, options: ReadOptions(accessKey: .mrz(Self.key))).run()
        }
    }

    @Test func aCorruptedResponseMACEndsTheReadWithASpecificErrorWithoutRecovery() async throws {
        // Exchange 5 is the first protected response (READ BINARY of EF.COM; exchange 0 is EF.ATR/INFO).
        let chip = Self.chip(Self.setups[0]) { $0.corruptMACAtExchange = [5] }
        let read = await DocumentReader.read(
            transport: chip, options: ReadOptions(accessKey: .mrz(Self.key), access: .bac, recovery: .none))
        #expect(read.result.error?.code == .secureMessagingMACInvalid)
        #expect(read.files.isEmpty, "a failed read hands out no files")
        #expect(read.result.transport.apdus == 6, "no command after the bad MAC")
    }

    @Test func aCorruptedResponseMACIsRecoveredByReauthenticatingOnce() async throws {
        let chip = Self.chip(Self.setups[0]) { $0.corruptMACAtExchange = [5] }
        let read = await DocumentReader.read(transport: chip, options: ReadOptions(accessKey: .mrz(Self.key), access: .bac))
        #expect(read.result.error == nil)
        #expect(read.files[.sod] == Self.specimen.files[.sod])
        #expect(read.result.transport.recoveries.map(\.kind) == ["secureMessagingMACInvalid"])
        #expect(read.result.transport.recoveries.first?.exchange == 5)
    }

    @Test func theLDS2ApplicationIsProbedAndReported() async throws {
        let with = try await ChipSession(
            transport: Self.chip(Self.setups[0]) { $0.lds2 = true },
            options: ReadOptions(accessKey: .mrz(Self.key))).run()
        #expect(with.applications == .init(lds1: true, lds2: true))
        let without = try await ChipSession(
            transport: Self.chip(Self.setups[0]), options: ReadOptions(accessKey: .mrz(Self.key))).run()
        #expect(without.applications == .init(lds1: true, lds2: false))
    }

    @Test func aChipWithoutTheEMRTDApplicationIsNotAnEMRTD() async throws {
        let transport = ScriptedTransport([
            // EF.ATR/INFO in the master file (BAC: in plain, before the application): absent.
            .init(command: [UInt8](hex: "00B08100000000")!, response: [0x6A, 0x82]),
            .init(command: [UInt8](hex: "00A4040C07A0000002472001")!, response: [0x6A, 0x82]),
            .init(command: [UInt8](hex: "00A4040C07A0000002471001")!, response: [0x6A, 0x82]),
        ])
        await #expect(throws: ProtocolError.notAnEMRTD(.fileNotFound)) {
            _ = try await ChipSession(transport: transport, options: ReadOptions(accessKey: .mrz(Self.key), access: .bac)).run()
        }
    }

    @Test func eacProtectedGroupsAreSkippedAndReported() async throws {
        let dg3 = TLV.encode(tag: 0x63, value: [UInt8](repeating: 0xAB, count: 40))
        let specimen = try SpecimenDocument.make(extraDataGroups: [3: dg3])
        let chip = Self.chip(Self.setups[0], files: specimen.files) { $0.selectStatus = [.dg(3): .securityStatusNotSatisfied] }
        let read = await DocumentReader.read(
            transport: chip, options: ReadOptions(accessKey: .mrz(Self.key), dataGroups: [3]))
        #expect(read.result.status == .unverified)
        #expect(read.result.dataGroupsSkipped == [.init(file: "DG3", reason: "securityStatusNotSatisfied")])
        #expect(read.files[.dg(3)] == nil)
        #expect(read.files[.dg(2)] == specimen.files[.dg(2)])
    }

    @Test func anUnparsableEFCOMIsAWarningAndTheGroupsAreStillRead() async throws {
        var files = Self.specimen.files
        files[.com] = TLV.encode(tag: 0x60, value: TLV.encode(tag: 0x5F01, value: Array("0107".utf8)))
        let read = await DocumentReader.read(
            transport: Self.chip(Self.setups[0], files: files), options: ReadOptions(accessKey: .mrz(Self.key)))
        #expect(read.result.status == .unverified)
        #expect(read.files[.dg(2)] == Self.specimen.files[.dg(2)])
        #expect(read.result.warnings.first?.hasPrefix("EF_COM:") == true)
        // DG14 and DG15 were tried (no EF.COM to rule them out) and reported missing.
        #expect(read.result.dataGroupsSkipped.map(\.file) == ["DG14", "DG15"])
    }

    @Test func anEFSODInIndefiniteLengthIsReadToTheEndOfTheFile() async throws {
        // 77 80 <ContentInfo> 00 00, as some US passports store it.
        let content = try TLV.parse(Self.specimen.files[.sod]!, expecting: 0x77).bytes
        var files = Self.specimen.files
        files[.sod] = [0x77, 0x80] + content + [0x00, 0x00]
        for setup in [Self.setups[0], Self.setups[3], Self.setups[7]] {
            let outcome = try await ChipSession(
                transport: Self.chip(setup, files: files), options: ReadOptions(accessKey: .mrz(Self.key))).run()
            #expect(outcome.files[.sod] == files[.sod], "\(setup.name)")
            #expect(outcome.files[.dg(2)] == Self.specimen.files[.dg(2)], "\(setup.name)")
        }
    }

    @Test func indefiniteLengthOutsideEFSODIsAMalformedFile() async throws {
        var files = Self.specimen.files
        files[.dg(1)] = [0x61, 0x80] + Array(files[.dg(1)]!.dropFirst(2)) + [0x00, 0x00]
        let read = await DocumentReader.read(
            transport: Self.chip(Self.setups[0], files: files), options: ReadOptions(accessKey: .mrz(Self.key)))
        #expect(read.result.error?.code == .malformedFile)
    }

    @Test func aHeaderDeclaringFourGigabytesIsRejectedBeforeReading() async throws {
        var files = Self.specimen.files
        files[.dg(2)] = [0x75, 0x84, 0xFF, 0xFF, 0xFF, 0xFF] + [UInt8](repeating: 0, count: 300)
        let read = await DocumentReader.read(
            transport: Self.chip(Self.setups[3], files: files), options: ReadOptions(accessKey: .mrz(Self.key)))
        #expect(read.result.error?.code == .fileTooLarge)
        #expect(read.result.error?.message.contains("4294967301") == true)
    }

    @Test func aFileShorterThanItsHeaderIsReportedTruncated() async throws {
        var files = Self.specimen.files
        files[.dg(1)] = Array(files[.dg(1)]!.dropLast(10))
        for setup in [Self.setups[0], Self.setups[3], Self.setups[7]] {
            let read = await DocumentReader.read(
                transport: Self.chip(setup, files: files), options: ReadOptions(accessKey: .mrz(Self.key)))
            #expect(read.result.error?.code == .fileTruncated, "\(setup.name)")
        }
    }

    @Test func filesPastOffset32767AreReadWithOddINS() async throws {
        let big = TLV.encode(tag: 0x6E, value: (0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let specimen = try SpecimenDocument.make(extraDataGroups: [14: big])
        for setup in [Self.setups[0], Self.setups[3]] {
            let outcome = try await ChipSession(
                transport: Self.chip(setup, files: specimen.files), options: ReadOptions(accessKey: .mrz(Self.key))).run()
            #expect(outcome.files[.dg(14)] == big, "\(setup.name)")
        }
    }

    @Test func theResultModelCarriesTheSpecimenFields() async throws {
        let read = await DocumentReader.read(
            transport: Self.chip(Self.setups[0]), options: ReadOptions(accessKey: .mrz(Self.key)))
        let r = read.result
        #expect(r.status == .unverified, "PA is not performed yet, so the read cannot be valid")
        #expect(r.document?.primaryIdentifier == "ERIKSSON")
        #expect(r.document?.secondaryIdentifier == "ANNA MARIA")
        #expect(r.document?.documentNumber == "L898902C3")
        #expect(r.document?.dateOfBirth == "1974-08-12")
        #expect(r.document?.dateOfBirthRaw == "740812")
        #expect(r.document?.mrzFormat == "TD3")
        #expect(r.face == .init(mimeType: "image/jpeg", width: SpecimenDocument.faceWidth,
                                height: SpecimenDocument.faceHeight,
                                size: SpecimenDocument.faceImageBytes(.jpeg).count, encoding: "ISO/IEC 19794-5"))
        #expect(r.dataGroupsRead == ["EF_COM", "EF_SOD", "DG1", "DG2"])
        #expect(r.checks.passiveAuthentication.result == .notPerformed)
    }

    @Test(arguments: SpecimenDocument.FaceFormat.allCases, [FaceEncoding.iso19794_5, .iso39794_5])
    func everyFaceVariantReadsBackToTheExactImage(_ format: SpecimenDocument.FaceFormat, _ encoding: FaceEncoding) async throws {
        let specimen = try SpecimenDocument.make(face: format, faceEncoding: encoding)
        let read = await DocumentReader.read(
            transport: Self.chip(Self.setups[0], files: specimen.files), options: ReadOptions(accessKey: .mrz(Self.key)))
        let dg2 = try DG2(rawBytes: try #require(read.files[.dg(2)]))
        #expect(dg2.faces.first?.imageData == SpecimenDocument.faceImageBytes(format))
        #expect(read.result.face?.mimeType == (format == .jpeg ? "image/jpeg" : "image/jp2"))
        #expect(read.result.face?.encoding == encoding.rawValue)
    }
}
