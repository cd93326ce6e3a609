import Foundation
import Testing
@testable import MRTDCore

/// A read's data groups are parsed once (issue 30): the result built from that parse is the result
/// built from the files, and the face handed out is DG2's first image as that parse found it.
@Suite struct ParsedDataGroupsTests {
    static let mrz = "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<" + "L898902C36UTO7408122F1204159ZE184226B<<<<<10"

    static func assemble(_ files: [LDSFile: [UInt8]], parsed: ParsedDataGroups? = nil) throws -> String {
        let result = parsed.map {
            ReadResult.assemble(files: files, parsed: $0, access: nil, applications: nil, skipped: [], transport: .init(), durationMs: 1)
        } ?? ReadResult.assemble(files: files, access: nil, applications: nil, skipped: [], transport: .init(), durationMs: 1)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(result), as: UTF8.self)
    }

    @Test func theResultFromTheOneParseIsTheResultFromTheFiles() throws {
        var files = LDSResultTests.files
        files[.dg(1)] = DG1.encode(mrz: Self.mrz)
        files[.dg(2)] = DG2.encode(image: LDSResultTests.jpeg, width: 3, height: 4, encoding: .iso19794_5)
        let parsed = ParsedDataGroups(files: files)
        #expect(try Self.assemble(files, parsed: parsed) == Self.assemble(files))
        #expect(parsed.face?.imageData == LDSResultTests.jpeg)
        #expect(parsed.mrz?.accessKey.documentNumber == "L898902C3")
        #expect(parsed.contents.images.map(\.name) == LDSContents(files: files).images.map(\.name))
    }

    @Test func aBrokenDG2KeepsItsErrorAndGivesNoFace() throws {
        let files: [LDSFile: [UInt8]] = [.dg(2): [0x75, 0x03, 0x7F, 0x61, 0x00]]
        let parsed = ParsedDataGroups(files: files)
        #expect(parsed.face == nil)
        guard case .failure = parsed.dg2 else { Issue.record("DG2 parsed: \(String(describing: parsed.dg2))"); return }
        #expect(parsed.dg1 == nil)
        let result = try Self.assemble(files, parsed: parsed)
        #expect(result == (try Self.assemble(files)))
        #expect(result.contains("DG2: "))
    }

    @Test func groupsNotReadStayNil() {
        let parsed = ParsedDataGroups(files: [:])
        #expect(parsed.dg1 == nil && parsed.dg2 == nil && parsed.face == nil && parsed.mrz == nil)
        #expect(parsed.contents.images.isEmpty)
    }
}
