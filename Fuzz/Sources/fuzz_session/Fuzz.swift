import FuzzSupport
import MRTDCore
import MRTDCrypto
import MRTDProtocol
import MRTDTesting

/// The whole read (SELECT, BAC, EF.COM, EF.SOD, DG1, DG2, DG14/15) against a virtual chip whose
/// files and quirks come from the input: EF.COM, EF.SOD and data groups of any content, any maximum
/// read length, extended length on or off, SFI support, the end-of-file status. The reader never
/// traps, sends a bounded number of APDUs, and never reports `valid`.
@main enum FuzzSession {
    static func main() { FuzzDriver.run(test) }

    static let key = try! MRZKey(documentNumber: "L898902C3", dateOfBirth: "740812", dateOfExpiry: "120415")

    struct FixedRandom: RandomSource {
        func randomBytes(_ count: Int) throws -> [UInt8] { Array(repeating: 0x5A, count: count) }
    }

    static let test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt = { data, size in
        var input = FuzzInput(data, size)
        let quirks = input.byte()
        let maxLe = 1 + Int(input.byte())
        var files: [LDSFile: [UInt8]] = [:]
        for file in [LDSFile.com, .sod, .dg(1), .dg(2), .dg(14), .dg(15)] where !input.isEmpty {
            files[file] = input.chunk()
        }
        let extended = quirks & 1 != 0
        let configuration = VirtualChipConfiguration(
            files: files, accessKey: key, extendedLength: extended,
            maxReadLength: quirks & 2 != 0 ? maxLe : nil, rejectsMaximumLe: quirks & 4 != 0,
            endOfFileStatus: quirks & 8 != 0 ? .endOfFileReached : StatusWord(rawValue: 0x6B00),
            shortFileIdentifiers: quirks & 16 != 0, random: FixedRandom())
        let options = ReadOptions(accessKey: .mrz(key), reader: .init(preferExtendedLength: quirks & 32 != 0))
        let result = runBlocking {
            await DocumentReader.read(transport: VirtualChip(configuration: configuration), options: options, random: FixedRandom()).result
        }
        fuzzCheck(result.status != .valid, "a fuzzed document was reported valid")
        fuzzCheck(result.transport.apdus < 2_000, "\(result.transport.apdus) APDUs for one read")
        return 0
    }
}
