import Foundation
public import MRTDCore
public import MRTDCrypto
import MRTDSimulation
import SwiftASN1

/// The LDS files of a generated document with an SOD signed by a ``FixturePKI``: every part of
/// EF.COM, the LDSSecurityObject, the SignedData and the outer tag can be changed by a test.
public struct FixtureDocument: Sendable {
    /// Complete data group files by number (tag and length included).
    public var dataGroups: [Int: [UInt8]]
    /// The data groups EF.COM lists; nil lists exactly ``dataGroups``.
    public var comDataGroups: [Int]?
    public var digest: DigestAlgorithm = .sha256
    /// LDSSecurityObject version (0 or 1); with 1 an LDSVersionInfo is written.
    public var securityObjectVersion = 0
    /// Replaces the LDSSecurityObject hashAlgorithm (DER AlgorithmIdentifier).
    public var securityObjectHashAlgorithm: [UInt8]?
    /// Hash values to write instead of the real ones.
    public var hashOverrides: [Int: [UInt8]] = [:]
    /// Data groups whose hash is left out.
    public var omittedHashes: Set<Int> = []
    /// Extra (number, value) hash entries, numbers unchecked (0xFF is allowed here).
    public var extraHashes: [(Int, [UInt8])] = []
    /// Replaces the whole eContent.
    public var rawSecurityObject: [UInt8]?
    /// The outer tag of EF.SOD (Doc 9303-10: 0x77).
    public var outerTag: UInt = 0x77

    /// DG1 with the ICAO specimen MRZ and a small DG2 (its content is never parsed by PA) and a
    /// DG14-like and DG15-like file.
    public init() {
        dataGroups = [
            1: DG1.encode(mrz: SpecimenDocument.erikssonMRZ.filter { $0 != "\n" }),
            2: TLV.encode(tag: 0x75, value: [UInt8](repeating: 0x42, count: 200)),
            14: TLV.encode(tag: 0x6E, value: [UInt8](repeating: 0x14, count: 40)),
            15: TLV.encode(tag: 0x6F, value: [UInt8](repeating: 0x15, count: 40)),
        ]
    }

    /// The encoded LDSSecurityObject (Doc 9303-10 §4.6.2.2), with the changes applied.
    public func securityObject() -> [UInt8] {
        if let rawSecurityObject { return rawSecurityObject }
        typealias D = DERBuilder
        var entries: [[UInt8]] = []
        for number in dataGroups.keys.sorted() where !omittedHashes.contains(number) {
            let value = hashOverrides[number] ?? digest.hash(dataGroups[number]!)
            entries.append(D.sequence(D.integer(number), D.octetString(value)))
        }
        for (number, value) in extraHashes { entries.append(D.sequence(D.integer(number), D.octetString(value))) }
        var fields = D.integer(securityObjectVersion) + (securityObjectHashAlgorithm ?? D.algorithm(digest.oid))
            + D.sequence(entries)
        if securityObjectVersion == 1 { fields += D.sequence(D.printable("0108"), D.printable("040000")) }
        return D.tlv(0x30, fields)
    }

    /// The SignedData template for this document, signed by `pki`'s DSC (embedded, signer
    /// identified by issuerAndSerialNumber).
    public func signedData(pki: FixturePKI) -> TestSignedData {
        TestSignedData(
            eContentType: LDSSecurityObject.oid, eContent: securityObject(), certificates: [pki.dsc],
            signerIdentifier: .issuerAndSerialNumber(issuer: pki.cscaName, serial: pki.dscSerial),
            digest: digest, scheme: pki.scheme)
    }

    /// EF.SOD around a built SignedData.
    public func sod(_ signedData: TestSignedData, pki: FixturePKI) throws -> [UInt8] {
        let contentInfo = try signedData.build(signedBy: pki.dscKey)
        if signedData.indefiniteLength { return TLV.encodeTag(outerTag) + [0x80] + contentInfo + [0, 0] }
        return TLV.encode(tag: outerTag, value: contentInfo)
    }

    /// All files: EF.COM, EF.SOD and the data groups; `modify` changes the SignedData first.
    public func files(pki: FixturePKI, _ modify: (inout TestSignedData) -> Void = { _ in }) throws -> [LDSFile: [UInt8]] {
        var signed = signedData(pki: pki)
        modify(&signed)
        var files: [LDSFile: [UInt8]] = [:]
        for (number, bytes) in dataGroups { files[.dg(number)] = bytes }
        let listed = (comDataGroups ?? dataGroups.keys.sorted()).map { LDSFile.dg($0) }
        files[.com] = EFCOM.encode(dataGroups: listed)
        files[.sod] = try sod(signed, pki: pki)
        return files
    }
}
