import FuzzSpecimen
import FuzzSupport
import MRTDCore
import MRTDCrypto
import MRTDProtocol
import MRTDTesting
import MRTDVerification
import MRTDSimulation

/// The whole read (SELECT, BAC, EF.COM, EF.SOD, DG1, DG2, DG14/15) against a virtual chip whose
/// files and quirks come from the input: EF.COM, EF.SOD and data groups of any content, any maximum
/// read length, extended length on or off, SFI support, the end-of-file status. The reader trusts
/// the TEST-ONLY CSCA, so passive authentication runs and `valid` is reachable: the seeds carry the
/// specimen signed by the test document signer. The reader never traps, sends a bounded number of
/// APDUs, and reports `valid` only for the specimen's signed LDSSecurityObject with DG1 and DG2 as
/// the specimen has them (anything else verifying would be a signature or hash check let through).
@main enum FuzzSession {
    static func main() {
        if FuzzSeeds.writeIfAsked({
            let files = specimen.files
            let parts = [files[.com]!, files[.sod]!, files[.dg(1)]!, files[.dg(2)]!]
            // A byte of the face image changed after signing: only a broken hash check lets it pass.
            var altered = files[.dg(2)]!
            altered[altered.count - 3] ^= 0x01
            return [
                "specimen_signed": FuzzSeeds.chunks([0, 0xDF], parts),
                "specimen_signed_sfi_extended": FuzzSeeds.chunks([16 | 32 | 1, 0xDF], parts),
                "specimen_dg2_altered": FuzzSeeds.chunks([0, 0xDF], [parts[0], parts[1], parts[2], altered]),
            ]
        }) { return }
        FuzzDriver.run(test)
    }

    static let key = FuzzSpecimen.key
    static let specimen = FuzzSpecimen.document

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
        let options = ReadOptions(
            accessKey: .mrz(key), reader: .init(preferExtendedLength: quirks & 32 != 0), trustStore: FuzzSpecimen.trustStore)
        let read = runBlocking {
            await DocumentReader.read(transport: VirtualChip(configuration: configuration), options: options, random: FixedRandom())
        }
        let result = read.result
        FuzzSpecimen.checkValidOnlyWhenSigned(read)
        fuzzCheck(result.transport.apdus < 2_000, "\(result.transport.apdus) APDUs for one read")
        return 0
    }
}
