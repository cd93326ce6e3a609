import Glibc
import Testing
@testable import MRTDCore

/// ReadOnlyMappings (issue 14, idle footprint): dropping the mappings of the read-only segments of
/// this very test process gives back resident file pages, and everything keeps working, since the
/// pages come back from the files on the next access: code, constants, Swift type metadata and
/// protocol conformances (read-only segments), relocated pointers (left alone: writable segments).
@Suite(.serialized) struct ReadOnlyMappingsTests {
    /// `field` of /proc/self/status in KiB.
    static func kiB(_ field: String) throws -> Int {
        let status = try FileContents.text("/proc/self/status")
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix(field + ":") })
        return try #require(line.split(separator: " ").compactMap { Int($0) }.first)
    }

    /// Work that runs through a good deal of code and constant data: MRZ parsing with its check
    /// digits, BER-TLV, hex, a dictionary of strings.
    static func work() throws -> String {
        let mrz = try MRZ(Specimen.td3.joined(separator: "\n"))
        let tlv = try TLV.parse([0x61, 0x05, 0x5F, 0x1F, 0x02, 0x41, 0x42])
        var counts: [String: Int] = [:]
        for word in "the quick brown fox jumps over the lazy dog the end".split(separator: " ") {
            counts[String(word), default: 0] += 1
        }
        return "\(mrz.documentNumber) \(mrz.dateOfBirth.iso8601 ?? "-") \(mrz.accessKey.dateOfExpiry) \(tlv.tag) \(tlv.value.count) "
            + [0xDE, 0xAD, 0xBE, 0xEF].hex + " \(counts["the"] ?? 0) \(counts.count)"
    }

    @Test func releasingGivesBackResidentFilePagesAndEverythingStillRuns() throws {
        let before = try Self.work()
        let fileBefore = try Self.kiB("RssFile"), anonBefore = try Self.kiB("RssAnon")
        let outcome = ReadOnlyMappings.release()
        let fileAfter = try Self.kiB("RssFile")
        if outcome == .skippedTraced {
            print("SKIPPED: a tracer is attached to the test process: ReadOnlyMappings.release() did nothing, as designed")
            return
        }
        guard case .released(let bytes) = outcome else {
            Issue.record("release failed: \(outcome)")
            return
        }
        print("read-only mappings: \(bytes >> 10) KiB released; RssFile \(fileBefore) -> \(fileAfter) KiB, RssAnon \(anonBefore) KiB before")
        // The test binary alone has tens of MB of code and constants.
        #expect(bytes > 8 << 20, "released \(bytes) bytes")
        // Resident file pages went back (other test threads may map a few again meanwhile).
        #expect(fileAfter < fileBefore - 2048, "RssFile \(fileBefore) -> \(fileAfter) KiB")
        // Nothing was lost: the same work gives the same answer, twice (the second run on pages
        // mapped again by the first), and a second release is as harmless.
        #expect(try Self.work() == before)
        _ = ReadOnlyMappings.release()
        #expect(try Self.work() == before)
        #expect(try Self.work() == "L898902C3 1974-08-12 120415 \(0x61) 5 DEADBEEF 3 9")
    }

    @Test func anUntracedProcessIsNotTakenForATracedOne() {
        // /proc/self/status says TracerPid: 0 under swift test (a debugger would make release() skip).
        let traced = ReadOnlyMappings.isTraced()
        let status = (try? FileContents.text("/proc/self/status")) ?? ""
        #expect(traced == !status.contains("TracerPid:\t0\n"))
    }
}
