import Foundation
import MRTDCore
import MRTDProtocol
import MRTDSimulation
import MRTDTranscript
import Testing

/// Unit ISO7816_C, reading binary files (plan §5.3; the eight cases moved to the ICAO test
/// specification, ICAO-P4 ISO7816_F_01..08: readings in notes/ISO7816_C.tsv).
@Suite(.statusAsserted) struct ISO7816_C {
    /// The READ BINARY offsets the reader sent, per file, from a plain read's commands (SELECT by
    /// file identifier or READ BINARY with a short file identifier; odd INS carries DO'54').
    static func offsets(_ commands: [[UInt8]], files: [LDSFile: [UInt8]]) -> [(file: LDSFile, offset: Int)] {
        var current: LDSFile?
        var result: [(LDSFile, Int)] = []
        for command in commands {
            if command[1] == 0xA4, command[2] == 0x02 || command[2] == 0x00, command.count >= 7 {
                let fid = UInt16(command[5]) << 8 | UInt16(command[6])
                current = files.keys.first { $0.fileID == fid && !$0.isInMasterFile }
            } else if command[1] == 0xB0 {
                var offset = Int(command[2]) << 8 | Int(command[3])
                if command[2] & 0x80 != 0 {
                    current = files.keys.first { $0.shortFileID == command[2] & 0x1F && !$0.isInMasterFile }
                    offset = Int(command[3])
                }
                if let current { result.append((current, offset)) }
            } else if command[1] == 0xB1, let current, let at = command.firstIndex(of: 0x54), at + 1 < command.count {
                let length = Int(command[at + 1])
                let value = command[(at + 2)..<min(command.count, at + 2 + length)]
                result.append((current, value.reduce(0) { $0 << 8 | Int($1) }))
            }
        }
        return result
    }

    /// A data group listed in EF.COM and hashed in EF.SOD (DG2, mandatory in LDS1) cannot be
    /// selected (6A82). The read goes on with the other files, reports the group as not read
    /// (`fileNotFound`), and is never `valid`: a mandatory group the document signer hashed is missing.
    @Test func ISO7816_C_01() async throws {
        var chip = try ConformanceProfile.bac.document().chip()
        chip.selectStatus[.dg(2)] = .fileNotFound
        let outcome = await Conformance.read(chip, try Conformance.options())
        Conformance.expectStatus(outcome.result, .invalid)
        #expect(outcome.result.warnings.contains { $0.hasPrefix("mandatoryDataGroupMissing: DG2") })
        #expect(outcome.result.dataGroupsSkipped.contains { $0.file == "DG2" && $0.reason == "fileNotFound" })
        #expect(outcome.read.files[.dg(1)] != nil)
    }

    /// A file larger than 32 KiB (DG2 with a 40,000-byte image): read whole, past offset 7FFF with
    /// odd-INS READ BINARY, hashes match; successful.
    @Test func ISO7816_C_02() async throws {
        var chip = try ConformanceProfile.bac.document().chip()
        let image = SpecimenDocument.faceImageBytes(.jpeg)
        let large = image + [UInt8](repeating: 0, count: 40_000 - image.count)
        chip.files[.dg(2)] = DG2.encode(image: large, width: SpecimenDocument.faceWidth, height: SpecimenDocument.faceHeight,
                                        encoding: .iso19794_5)
        try Conformance.resign(&chip)
        let outcome = await Conformance.read(chip, try Conformance.options())
        Conformance.expectStatus(outcome.result, .valid)
        #expect(outcome.read.files[.dg(2)] == chip.files[.dg(2)])
        #expect(outcome.result.checks.passiveAuthentication.dataGroupHashes?["DG2"] == "valid")
        #expect(outcome.result.transport.fileBytes > 40_000)
    }

    /// The reader reads within each file's length as its TLV header gives it: no READ BINARY of an
    /// unprotected chip's files starts at or past the end of the file (which the chip would refuse
    /// with 6B00).
    @Test func ISO7816_C_03() async throws {
        let chip = try ConformanceProfile.plain.document().chip()
        let outcome = await Conformance.read(chip, try Conformance.options())
        Conformance.expectStatus(outcome.result, .valid)
        let offsets = Self.offsets(outcome.commands, files: chip.files)
        #expect(offsets.count >= 4)
        for (file, offset) in offsets {
            #expect(offset < (chip.files[file]?.count ?? 0), "\(file) read at \(offset)")
        }
        #expect(!outcome.exchanges.contains { $0.response.suffix(2) == [0x6B, 0x00] })
    }

    /// A chip that ends a file with 6B00 (instead of 6282) when Le runs past it, and refuses Le=00
    /// with 6B00: the reader recovers and reads every file; successful.
    @Test func ISO7816_C_04() async throws {
        var chip = try ConformanceProfile.bac.document().chip()
        chip.endOfFileStatus = .wrongParametersOffset
        chip = chip.with(quirks: [.le00Refused6B00])
        let outcome = await Conformance.read(chip, try Conformance.options())
        Conformance.expectStatus(outcome.result, .valid)
        #expect(outcome.read.files[.dg(2)] == chip.files[.dg(2)])
    }

    /// The last block of a file comes with fewer bytes than asked and 6282 (end of file reached):
    /// the short data is taken; successful.
    @Test func ISO7816_C_05() async throws {
        var chip = try ConformanceProfile.bac.document().chip()
        chip.endOfFileStatus = .endOfFileReached
        chip = chip.with(quirks: [.eof6282])
        let outcome = await Conformance.read(chip, try Conformance.options())
        Conformance.expectStatus(outcome.result, .valid)
        #expect(outcome.read.files[.dg(1)] == chip.files[.dg(1)])
    }

    /// A READ BINARY whose Le runs past the end of the file is answered 6Cxx (xx: the bytes there
    /// are): the reader repeats it with Le = xx; successful.
    @Test func ISO7816_C_06() async throws {
        var chip = try ConformanceProfile.bac.document().chip()
        chip.wrongLengthAnswers6Cxx = true
        let outcome = await Conformance.read(chip, try Conformance.options())
        Conformance.expectStatus(outcome.result, .valid, "\(String(describing: outcome.result.error)) \(outcome.exchanges.map { ($0.command.prefix(5).map { String(format: "%02X", $0) }.joined(), $0.response.suffix(2).map { String(format: "%02X", $0) }.joined(), $0.command.count) })")
        #expect(outcome.read.files[.dg(1)] == chip.files[.dg(1)])
        #expect(outcome.exchanges.contains { $0.response.count >= 2 && $0.response[$0.response.count - 2] == 0x6C })
    }

    /// Odd-INS READ BINARY (B1, offset in DO'54', data in DO'53') under secure messaging for a file
    /// past 32 KiB, through an unprotected chip too: read whole; successful.
    @Test func ISO7816_C_07() async throws {
        for profile in [ConformanceProfile.bac, .plain] {
            var chip = try profile.document().chip()
            let image = SpecimenDocument.faceImageBytes(.jpeg)
            chip.files[.dg(2)] = DG2.encode(
                image: image + [UInt8](repeating: 0, count: 33_000 - image.count), width: SpecimenDocument.faceWidth,
                height: SpecimenDocument.faceHeight, encoding: .iso19794_5)
            chip.extendedLength = false  // short APDUs: the offsets pass 7FFF inside the file
            try Conformance.resign(&chip)
            let outcome = await Conformance.read(chip, try Conformance.options())
            Conformance.expectStatus(outcome.result, .valid, "\(profile)")
            #expect(outcome.read.files[.dg(2)] == chip.files[.dg(2)], "\(profile)")
            #expect(!outcome.commands(ins: 0xB1).isEmpty, "\(profile)")
        }
    }

    /// DG2 whose facial image has 0 bytes: the read completes, DG2's hash is checked (valid), no face
    /// is reported, and a signed DG2 without a face image fails the structure check: `invalid`
    /// (Doc 9303-10 §4.7.2: the face is mandatory).
    @Test func ISO7816_C_08() async throws {
        var chip = try ConformanceProfile.bac.document().chip()
        chip.files[.dg(2)] = DG2.encode(image: [], width: 0, height: 0, encoding: .iso19794_5)
        try Conformance.resign(&chip)
        let outcome = await Conformance.read(chip, try Conformance.options())
        Conformance.expectStatus(outcome.result, .invalid)
        #expect(outcome.result.checks.passiveAuthentication.dataGroupHashes?["DG2"] == "valid")
        #expect(outcome.result.face == nil)
        #expect(outcome.result.checks.dataGroupStructure?.result == .failed, "\(String(describing: outcome.result.checks.dataGroupStructure))")
    }
}
