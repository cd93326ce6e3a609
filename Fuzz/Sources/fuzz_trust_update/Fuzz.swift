import Foundation
import FuzzSupport
import MRTDCore
import MRTDTesting
import MRTDVerification

/// What `mrtdctl trust update` takes from the network (docs/trust-update.md): a ZIP, an LDIF, a CMS
/// list or a CRL. The first byte picks the ZIP reader alone or the whole intake (items, then the
/// plan against an empty store). No trap; an archive never inflates past its limits; every refusal
/// is a TrustUpdateError with a trustUpdate* code; nothing unverified is planned.
@main enum FuzzTrustUpdate {
    static func main() {
        if FuzzSeeds.writeIfAsked(makeSeeds) { return }
        FuzzDriver.run(test)
    }

    static let limit = 1 << 20
    static let date = Date()

    static let test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt = { data, size in
        var input = FuzzInput(data, size)
        let zipOnly = input.bool()
        let bytes = input.rest()
        if zipOnly {
            if let archive = try? ZipArchive(bytes, maxEntryBytes: limit, maxTotalBytes: limit) {
                fuzzCheck(archive.entries.reduce(0) { $0 + $1.bytes.count } <= limit, "an archive inflated past its limit")
            }
            return 0
        }
        do {
            let items = try TrustUpdate.items(in: bytes, name: "fuzz", limits: .init(sourceBytes: limit, inflatedBytes: limit))
            fuzzCheck(!items.isEmpty, "items() returned nothing without an error")
            let planned = try TrustUpdate.plan(items, store: TrustStore(), installedDirectory: nil, at: date)
            // An empty store trusts no CSCA: only a list carrying its own signer's CSCA may verify.
            for entry in planned {
                fuzzCheck(entry.kind == .masterList, "a \(entry.kind) planned without a CSCA in the store")
                fuzzCheck(entry.relativePath.hasPrefix("masterlists/") && !entry.relativePath.contains(".."), "a bad path \(entry.relativePath)")
            }
        } catch let error as TrustUpdateError {
            fuzzCheck(error.errorCode.rawValue.hasPrefix("trustUpdate"), "refused with \(error.errorCode)")
        } catch {
            fuzzCheck(false, "an error that is not a TrustUpdateError: \(error)")
        }
        return 0
    }

    /// Seeds: an LDIF with a fixture master list under the 2026 attribute name, the bare list, a
    /// stored ZIP holding it (built here: local header, central directory, end record).
    static func makeSeeds() throws -> [String: [UInt8]] {
        let pki = try FixturePKI.make(.ecP256, country: "UW", cscaCommonName: "Fuzz CSCA", keySet: 3)
        let list = try pki.masterList(containing: [pki.csca]) { $0.signingTime = Date(timeIntervalSince1970: 1_780_000_000) }
        let ldif = "version: 1\n\ndn: cn=x,c=UW\npkdMasterListContent;binary:: \(Data(list).base64EncodedString())\n\n"
        return ["ml": [0] + list, "ldif": [0] + Array(ldif.utf8), "zip": [0] + storedZip("UW.ml", list), "zip_only": [1] + storedZip("UW.ml", list)]
    }

    static func storedZip(_ name: String, _ content: [UInt8]) -> [UInt8] {
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(v >> (8 * $0) & 0xFF) } }
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in content {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        crc ^= 0xFFFF_FFFF
        let nameBytes = Array(name.utf8)
        let size = le32(UInt32(content.count))
        let local = le32(0x0403_4B50) + le16(20) + le16(0) + le16(0) + le16(0) + le16(0) + le32(crc) + size + size
            + le16(nameBytes.count) + le16(0) + nameBytes + content
        let central = le32(0x0201_4B50) + le16(20) + le16(20) + le16(0) + le16(0) + le16(0) + le16(0) + le32(crc) + size + size
            + le16(nameBytes.count) + le16(0) + le16(0) + le16(0) + le16(0) + le32(0) + le32(0) + nameBytes
        let end = le32(0x0605_4B50) + le16(0) + le16(0) + le16(1) + le16(1) + le32(UInt32(central.count)) + le32(UInt32(local.count)) + le16(0)
        return local + central + end
    }
}
