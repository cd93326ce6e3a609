import MRTDCore
import MRTDCrypto
import MRTDProtocol
import MRTDSimulation
import MRTDVerification
import Testing

/// Edits of LDS files for units LDS_D … LDS_J: a profile's chip with some data groups replaced and
/// EF.SOD signed again over them (the document stays authentic, only the group is defective), the
/// outer tag or length of a file changed, SecurityInfos edited element by element.
enum LDSFileEdits {
    /// What an EAC inspection system reads: DG1-4, DG14, DG15, with the run's terminal.
    static func eacOptions() throws -> ReadOptions {
        try Conformance.options(dataGroups: [1, 2, 3, 4, 14, 15], terminal: true)
    }

    /// The chip of `profile` with `groups` (complete files, keyed by number) in place of its own and
    /// EF.SOD hashing and signing them (`Conformance.resign`: the sets' TEST-ONLY DE signer).
    static func chip(_ profile: ConformanceProfile, replacing groups: [Int: [UInt8]]) throws -> VirtualChipConfiguration {
        var chip = try profile.document().chip()
        for (number, bytes) in groups { chip.files[.dg(number)] = bytes }
        try Conformance.resign(&chip)
        return chip
    }

    /// The chip's current file `number` of `profile`'s unmodified chip.
    static func dataGroup(_ profile: ConformanceProfile, _ number: Int) throws -> [UInt8] {
        try #require(try profile.document().chip().files[.dg(number)])
    }

    /// `file` with its first (outer) tag byte replaced by `tag`.
    static func withOuterTag(_ file: [UInt8], _ tag: UInt8) -> [UInt8] {
        var bytes = file
        bytes[0] = tag
        return bytes
    }

    /// `file` (one-byte tag) with its outer length changed by `delta`, in the same length form; the
    /// value bytes stay as they are (so the length no longer matches them).
    static func withOuterLength(_ file: [UInt8], delta: Int) throws -> [UInt8] {
        let header = try TLV.parseHeader(file)
        let lengthBytes = header.headerLength - 1
        let newLength = header.length + delta
        var encoded: [UInt8]
        if lengthBytes == 1 {
            encoded = [UInt8(newLength)]
        } else {
            let n = lengthBytes - 1
            encoded = [file[1]] + (0..<n).reversed().map { UInt8((newLength >> ($0 * 8)) & 0xFF) }
        }
        return [file[0]] + encoded + file[header.headerLength...]
    }

    /// The elements (complete TLVs) of a SecurityInfos SET.
    static func elements(ofSet set: [UInt8]) throws -> [[UInt8]] {
        try TLV.parse(set, expecting: 0x31).children().map(\.encoded)
    }

    /// DG14 with its SecurityInfos edited by `edit` (each element a complete TLV).
    static func editDG14(_ dg14: [UInt8], _ edit: (inout [[UInt8]]) throws -> Void) throws -> [UInt8] {
        let set = try #require(try TLV.parse(dg14, expecting: 0x6E).child(0x31))
        var elements = try set.children().map(\.encoded)
        try edit(&elements)
        return TLV.encode(tag: 0x6E, value: TLV.encode(tag: 0x31, value: elements.flatMap { $0 }))
    }

    /// The protocol OID (its DER value) of a SecurityInfo element.
    static func protocolOID(_ element: [UInt8]) throws -> [UInt8] {
        try #require(try TLV.parse(element, expecting: 0x30).child(0x06)).bytes
    }

    /// `id-PK-ECDH` and `id-PK-DH` (0.4.0.127.0.7.2.2.1.2 / .1): ChipAuthenticationPublicKeyInfo.
    static func isPublicKeyInfo(_ element: [UInt8]) -> Bool {
        guard let oid = try? protocolOID(element) else { return false }
        return oid.starts(with: [0x04, 0x00, 0x7F, 0x00, 0x07, 0x02, 0x02, 0x01])
    }

    /// `id-CA-*` (0.4.0.127.0.7.2.2.3.x.y): ChipAuthenticationInfo.
    static func isChipAuthenticationInfo(_ element: [UInt8]) -> Bool {
        guard let oid = try? protocolOID(element) else { return false }
        return oid.count == 10 && oid.starts(with: [0x04, 0x00, 0x7F, 0x00, 0x07, 0x02, 0x02, 0x03])
    }

    /// A SecurityInfo element rebuilt from its children as `edit` leaves them.
    static func editElement(_ element: [UInt8], _ edit: (inout [[UInt8]]) throws -> Void) throws -> [UInt8] {
        var children = try TLV.parse(element, expecting: 0x30).children().map(\.encoded)
        try edit(&children)
        return TLV.encode(tag: 0x30, value: children.flatMap { $0 })
    }

    /// EF.CardSecurity over `securityInfos` (the SET's elements), signed by the run's DS.
    static func cardSecurity(_ elements: [[UInt8]]) throws -> [UInt8] {
        let signer = try ConformanceProfile.signer()
        return try CMSSigner.sign(
            content: TLV.encode(tag: 0x31, value: elements.flatMap { $0 }),
            eContentTypeOID: "0.4.0.127.0.7.3.2.1",  // id-SecurityObject (TR-03110-3 A.1.2.5)
            certificateDER: signer.certificate.derBytes, privateKey: signer.privateKey, digest: .sha256)
    }

    /// The SecurityInfos elements signed in `cardSecurity`.
    static func cardSecurityElements(_ cardSecurity: [UInt8]) throws -> [[UInt8]] {
        try elements(ofSet: try CardSecurity(rawBytes: cardSecurity).eContent)
    }
}

/// The verdicts of units LDS_D / LDS_E on the result model.
extension LDSFileEdits {
    /// "Inspection procedure successful" after EAC: `valid`, passive and terminal authentication
    /// passed, the group read and well-formed, its records as given.
    static func expectBiometricsRead(
        _ outcome: Conformance.Outcome, dg: Int, formats: [String], positions: [String?],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let r = outcome.result
        Conformance.expectStatus(r, .valid, "\(r.status) \(r.checks.dataGroupStructure?.detail ?? "")", sourceLocation: sourceLocation)
        #expect(r.checks.passiveAuthentication.result == .passed, sourceLocation: sourceLocation)
        #expect(r.checks.terminalAuthentication?.result == .passed, sourceLocation: sourceLocation)
        #expect(r.checks.dataGroupStructure?.result == .passed, sourceLocation: sourceLocation)
        #expect(outcome.read.files[.dg(dg)] != nil, sourceLocation: sourceLocation)
        let records = (r.biometrics ?? []).filter { $0.dataGroup == "DG\(dg)" }
        #expect(records.map(\.imageFormat) == formats, sourceLocation: sourceLocation)
        #expect(records.map(\.position) == positions, sourceLocation: sourceLocation)
    }

    /// "Inspection procedure failed" for a malformed DG3 / DG4 the IS read after EAC: the structure
    /// check fails naming the group (`dg3Malformed` / `dg4Malformed`) with `detail` among its
    /// problems, and the status is `invalid`; the document is otherwise authentic.
    static func expectBiometricsMalformed(
        _ outcome: Conformance.Outcome, dg: Int, detail: String, hashValid: Bool = true,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let r = outcome.result
        Conformance.expectStatus(r, .invalid, "\(r.status) \(r.error?.message ?? "")", sourceLocation: sourceLocation)
        #expect(r.checks.terminalAuthentication?.result == .passed, sourceLocation: sourceLocation)
        #expect(outcome.read.files[.dg(dg)] != nil, "DG\(dg) read", sourceLocation: sourceLocation)
        let structure = r.checks.dataGroupStructure
        #expect(structure?.result == .failed, sourceLocation: sourceLocation)
        #expect(structure?.reason?.split(separator: ",").contains("dg\(dg)Malformed") == true,
                "\(structure?.reason ?? "nil")", sourceLocation: sourceLocation)
        #expect(structure?.detail?.contains(detail) == true, "\(structure?.detail ?? "nil")", sourceLocation: sourceLocation)
        if hashValid {
            #expect(r.checks.passiveAuthentication.result == .passed, sourceLocation: sourceLocation)
        }
    }
}
