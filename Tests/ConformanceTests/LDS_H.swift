import Foundation
import MRTDCore
import MRTDCrypto
import MRTDProtocol
import MRTDSimulation
import MRTDTesting
import MRTDVerification
import SwiftASN1
import Testing

/// BSI TR-03105 Part 5.1 v1.5 §6.8, unit LDS_H: EF.SOD and passive authentication. Every case
/// rebuilds EF.SOD of a CFG.DFLT.EAC chip (CFG.DFLT.PACE where the plan says so) over the chip's
/// data groups with the case's algorithms or defect (``SODCase``); the moved cases' readings are in
/// notes/LDS_H.tsv. "Inspection procedure successful": the document `valid`, passive authentication
/// passed; "failed": passive authentication failed with the specific reason, the document `invalid`.
@Suite(.statusAsserted) struct LDS_H {
    typealias D = DERBuilder
    static let rsa3072 = SODCase.rsa3072, rsa2048 = SODCase.rsa2048

    /// A positive algorithm case: CSCA and DS keys, the chain's scheme, the SOD's scheme and digests.
    static func algorithmCase(
        _ label: String, csca: PrivateKey.Generation = rsa3072, dsc: PrivateKey.Generation = rsa2048,
        chain chainScheme: SignatureScheme? = nil, sod scheme: SignatureScheme, digest: DigestAlgorithm? = nil,
        lsoDigest: DigestAlgorithm? = nil
    ) throws -> SODCase {
        let chain = try SimulationPKI.Chain.make(
            cscaKey: csca, dscKey: dsc, certificateScheme: chainScheme ?? scheme, label: label, country: SODCase.country)
        return SODCase(chain: chain, scheme: scheme, digest: digest ?? scheme.digest, lsoDigest: lsoDigest)
    }

    static func pss(_ digest: DigestAlgorithm) -> SignatureScheme { SODCase.pss(digest) }
    static func ec(_ curve: String) -> PrivateKey.Generation { SODCase.ec(curve) }

    // MARK: - Positive signature / hash algorithm matrix (§6.8.1–6.8.15)

    /// LDS_H_01 (§6.8.1): RSASSA-PKCS1-v1_5 with SHA-1 throughout (CSCA RSA 3072, DS RSA 2048, DS in
    /// the SOD): successful.
    @Test func LDS_H_01() async throws {
        try await Self.algorithmCase("H01", sod: .rsaPKCS1v15(.sha1)).expectSuccessful()
    }

    /// LDS_H_02 (§6.8.2): RSASSA-PSS with SHA-1 throughout: successful.
    @Test func LDS_H_02() async throws {
        try await Self.algorithmCase("H02", sod: Self.pss(.sha1)).expectSuccessful()
    }

    /// LDS_H_03 (§6.8.3): the plan's default EAC document: RSASSA-PSS with SHA-256 throughout: successful.
    @Test func LDS_H_03() async throws {
        try await Self.algorithmCase("H03", sod: Self.pss(.sha256)).expectSuccessful()
    }

    /// LDS_H_04 (§6.8.4): RSASSA-PKCS1-v1_5 with SHA-224 throughout: successful.
    @Test func LDS_H_04() async throws {
        try await Self.algorithmCase("H04", sod: .rsaPKCS1v15(.sha224)).expectSuccessful()
    }

    /// LDS_H_05 (§6.8.5): RSASSA-PKCS1-v1_5 with SHA-256 throughout: successful.
    @Test func LDS_H_05() async throws {
        try await Self.algorithmCase("H05", sod: .rsaPKCS1v15(.sha256)).expectSuccessful()
    }

    /// LDS_H_06 (§6.8.6): RSASSA-PKCS1-v1_5 with SHA-384 throughout: successful.
    @Test func LDS_H_06() async throws {
        try await Self.algorithmCase("H06", sod: .rsaPKCS1v15(.sha384)).expectSuccessful()
    }

    /// LDS_H_07 (§6.8.7): RSASSA-PKCS1-v1_5 with SHA-512 throughout: successful.
    @Test func LDS_H_07() async throws {
        try await Self.algorithmCase("H07", sod: .rsaPKCS1v15(.sha512)).expectSuccessful()
    }

    /// DSA keys of the DSA cases as the plan sizes them: CSCA DSA 3072 (q 256 bits), DS DSA 2048 (q 224 bits).
    static let dsaCSCA = PrivateKey.Generation.dsa(bits: 3072, qBits: 256), dsaDSC = PrivateKey.Generation.dsa(bits: 2048, qBits: 224)

    /// LDS_H_08 (§6.8.8): DSA with SHA-1 throughout (id-dsa-with-sha1): successful.
    @Test func LDS_H_08() async throws {
        try await Self.algorithmCase("H08", csca: Self.dsaCSCA, dsc: Self.dsaDSC, sod: .dsa(.sha1)).expectSuccessful()
    }

    /// LDS_H_09 (§6.8.9): ECDSA with SHA-1, X9.62 OID ecdsa-with-SHA1 and DER signatures (CSCA P-256,
    /// DS P-224): successful.
    @Test func LDS_H_09() async throws {
        try await Self.algorithmCase("H09", csca: Self.ec("prime256v1"), dsc: Self.ec("secp224r1"), sod: .ecdsa(.sha1)).expectSuccessful()
    }

    /// LDS_H_10 (§6.8.10): ECDSA with SHA-1, BSI OID ecdsa-plain-SHA1 and plain r‖s signatures in the
    /// SOD and both certificates (CSCA P-256, DS P-224): successful.
    @Test func LDS_H_10() async throws {
        try await Self.algorithmCase("H10", csca: Self.ec("prime256v1"), dsc: Self.ec("secp224r1"), sod: .ecdsaPlain(.sha1)).expectSuccessful()
    }

    /// LDS_H_11 (§6.8.11): ecdsa-plain-SHA224 (CSCA P-256, DS P-224): successful.
    @Test func LDS_H_11() async throws {
        try await Self.algorithmCase("H11", csca: Self.ec("prime256v1"), dsc: Self.ec("secp224r1"), sod: .ecdsaPlain(.sha224)).expectSuccessful()
    }

    /// LDS_H_12 (§6.8.12): ecdsa-plain-SHA256 (CSCA and DS P-256): successful.
    @Test func LDS_H_12() async throws {
        try await Self.algorithmCase("H12", csca: Self.ec("prime256v1"), dsc: Self.ec("prime256v1"), sod: .ecdsaPlain(.sha256)).expectSuccessful()
    }

    /// LDS_H_13 (§6.8.13): ecdsa-plain-SHA384 (CSCA and DS P-384): successful.
    @Test func LDS_H_13() async throws {
        try await Self.algorithmCase("H13", csca: Self.ec("secp384r1"), dsc: Self.ec("secp384r1"), sod: .ecdsaPlain(.sha384)).expectSuccessful()
    }

    /// LDS_H_14 (§6.8.14): ecdsa-plain-SHA512 with 512-bit keys (brainpoolP512r1): successful.
    @Test func LDS_H_14() async throws {
        try await Self.algorithmCase("H14", csca: Self.ec("brainpoolP512r1"), dsc: Self.ec("brainpoolP512r1"), sod: .ecdsaPlain(.sha512)).expectSuccessful()
    }

    /// LDS_H_15 (§6.8.15, optional): RSASSA-PKCS1-v1_5 SHA-256 SOD without the DS certificate; the
    /// inspection system has the DS certificate in its store: successful, reported `dscFromTrustStore`.
    @Test func LDS_H_15() async throws {
        var sod = try Self.algorithmCase("H15", sod: .rsaPKCS1v15(.sha256))
        sod.embedDSC = false
        sod.dscInTrustStore = true
        try await sod.expectSuccessful()
        let outcome = try await sod.read()
        Conformance.expectStatus(outcome.result, .valid)
        #expect(outcome.result.checks.passiveAuthentication.warnings?.contains("dscFromTrustStore") == true)
        sod.dscInTrustStore = false
        try await sod.expectFailed(.dscNotFound)
    }

    // MARK: - SignedData defects (moved to ICAO LDS_D; readings in notes/LDS_H.tsv)

    /// LDS_H_17 (§6.8.17 → ICAO LDS_D_02): EF.SOD's outer tag 77 replaced by 78: failed, `sodMalformed`.
    @Test func LDS_H_17() async throws {
        var sod = try SODCase.standard("H17")
        sod.finish = { $0[.sod]![0] = 0x78 }
        try await sod.expectFailed(.sodMalformed)
    }

    /// LDS_H_18 (§6.8.18 → LDS_D_03): the tag 77 length one less than its content: the file as its
    /// header announces it is cut short, the SignedData does not decode: failed, `sodMalformed`.
    @Test func LDS_H_18() async throws {
        var sod = try SODCase.standard("H18")
        sod.finish = { files in files[.sod] = Self.withOuterLength(files[.sod]!, delta: -1) }
        try await sod.expectFailed(.sodMalformed)
    }

    /// LDS_H_19 (§6.8.19 → LDS_D_04): the tag 77 length larger than the file: the chip ends the file
    /// early; the read fails with `fileTruncated` naming EF.SOD (never valid, passive authentication
    /// not passed), no crash.
    @Test func LDS_H_19() async throws {
        var sod = try SODCase.standard("H19")
        sod.finish = { files in files[.sod] = Self.withOuterLength(files[.sod]!, delta: 16) }
        let outcome = try await sod.read()
        Conformance.expectStatus(outcome.result, .failed)
        #expect(outcome.result.error?.code == .fileTruncated)
        #expect(outcome.result.error?.message.contains("EF_SOD") == true)
        #expect(outcome.result.checks.passiveAuthentication.result != .passed)
    }

    /// EF.SOD with its tag 77 length changed by `delta` (long form 82 xx xx as the builder writes it).
    static func withOuterLength(_ sod: [UInt8], delta: Int) -> [UInt8] {
        precondition(sod[1] == 0x82)
        let length = (Int(sod[2]) << 8 | Int(sod[3])) + delta
        var out = sod
        out[2] = UInt8(length >> 8)
        out[3] = UInt8(length & 0xFF)
        return out
    }

    /// LDS_H_20 (§6.8.20 → LDS_D_05): SignedData version 2 instead of 3: failed, `sodMalformed`.
    @Test func LDS_H_20() async throws {
        var sod = try SODCase.standard("H20")
        sod.signed = { $0.version = 2 }
        try await sod.expectFailed(.sodMalformed)
    }

    /// LDS_H_21 (§6.8.21 → LDS_D_06): SignedData version left out: failed, `sodMalformed`.
    @Test func LDS_H_21() async throws {
        var sod = try SODCase.standard("H21")
        sod.signed = { $0.omitVersion = true }
        try await sod.expectFailed(.sodMalformed)
    }

    /// LDS_H_22 (§6.8.22 → LDS_D_07): digestAlgorithms lists MD5: failed, `digestAlgorithmNotAllowed`.
    @Test func LDS_H_22() async throws {
        var sod = try SODCase.standard("H22")
        sod.signed = { $0.digestAlgorithms = [D.md5] }
        try await sod.expectFailed(.digestAlgorithmNotAllowed)
    }

    /// LDS_H_23 (§6.8.23 → LDS_D_08): the digestAlgorithms SET left out: failed, `sodMalformed`.
    @Test func LDS_H_23() async throws {
        var sod = try SODCase.standard("H23")
        sod.signed = { $0.omitDigestAlgorithms = true }
        try await sod.expectFailed(.sodMalformed)
    }

    /// LDS_H_24 (§6.8.24 → LDS_D_09): eContentType id-data instead of id-icao-ldsSecurityObject:
    /// failed, `sodContentTypeInvalid`.
    @Test func LDS_H_24() async throws {
        var sod = try SODCase.standard("H24")
        sod.signed = {
            $0.eContentType = [1, 2, 840, 113549, 1, 7, 1]
            $0.contentTypeAttribute = [1, 2, 840, 113549, 1, 7, 1]
        }
        try await sod.expectFailed(.sodContentTypeInvalid)
    }

    /// LDS_H_25 (§6.8.25 → LDS_D_10): eContentType left out of encapContentInfo: failed, `sodMalformed`.
    @Test func LDS_H_25() async throws {
        var sod = try SODCase.standard("H25")
        sod.signed = { $0.omitEContentType = true }
        try await sod.expectFailed(.sodMalformed)
    }

    /// LDS_H_26 (§6.8.26 → LDS_D_11): SignerInfo version 2 (neither 1 nor 3): failed, `sodMalformed`.
    @Test func LDS_H_26() async throws {
        var sod = try SODCase.standard("H26")
        sod.signed = { $0.signerVersion = 2 }
        try await sod.expectFailed(.sodMalformed)
    }

    /// LDS_H_27 (§6.8.27 → LDS_D_12): SignerInfo version left out: failed, `sodMalformed`.
    @Test func LDS_H_27() async throws {
        var sod = try SODCase.standard("H27")
        sod.signed = { $0.omitSignerVersion = true }
        try await sod.expectFailed(.sodMalformed)
    }

    /// LDS_H_28 (§6.8.28 → LDS_D_13): v1 SignerInfo whose issuerAndSerialNumber names another serial
    /// number: no signer certificate: failed, `dscNotFound`.
    @Test func LDS_H_28() async throws {
        var sod = try SODCase.standard("H28")
        let issuer = sod.chain.cscaName
        sod.signed = { $0.signerIdentifier = .issuerAndSerialNumber(issuer: issuer, serial: [0x7E, 0x57]) }
        try await sod.expectFailed(.dscNotFound)
    }

    /// LDS_H_29 (§6.8.29 → LDS_D_14): v3 SignerInfo whose subjectKeyIdentifier names no certificate:
    /// failed, `dscNotFound`.
    @Test func LDS_H_29() async throws {
        var sod = try SODCase.standard("H29")
        sod.signed = { $0.signerIdentifier = .subjectKeyIdentifier([UInt8](repeating: 0x29, count: 20)) }
        try await sod.expectFailed(.dscNotFound)
    }

    /// LDS_H_30 (§6.8.30 → LDS_D_15): SignerInfo digestAlgorithm MD5: failed, `digestAlgorithmNotAllowed`.
    @Test func LDS_H_30() async throws {
        var sod = try SODCase.standard("H30")
        sod.signed = { $0.signerDigestOverride = D.md5 }
        try await sod.expectFailed(.digestAlgorithmNotAllowed)
    }

    /// LDS_H_31 (§6.8.31 → LDS_D_16): SignerInfo digestAlgorithm left out: failed, `sodMalformed`.
    @Test func LDS_H_31() async throws {
        var sod = try SODCase.standard("H31")
        sod.signed = { $0.signerDigestOverride = [] }
        try await sod.expectFailed(.sodMalformed)
    }

    /// LDS_H_32 (§6.8.32 → LDS_D_17): messageDigest attribute not the hash of the eContent (the
    /// attributes signed as they are): failed, `signedAttributesInvalid`.
    @Test func LDS_H_32() async throws {
        var sod = try SODCase.standard("H32")
        sod.signed = { $0.messageDigestOverride = [UInt8](repeating: 0x32, count: 32) }
        try await sod.expectFailed(.signedAttributesInvalid)
    }

    /// LDS_H_33 (§6.8.33 → LDS_D_18): messageDigest attribute left out (signed so): failed,
    /// `signedAttributesInvalid`.
    @Test func LDS_H_33() async throws {
        var sod = try SODCase.standard("H33")
        sod.signed = { $0.omitMessageDigest = true }
        try await sod.expectFailed(.signedAttributesInvalid)
    }

    /// LDS_H_36 (§6.8.36): SignerInfo signatureAlgorithm md5WithRSAEncryption (LDSSecurityObject and
    /// CMS digests SHA-256): the inspection system refuses MD5: failed, `signatureAlgorithmNotAllowed`.
    @Test func LDS_H_36() async throws {
        var sod = try Self.algorithmCase("H36", chain: Self.pss(.sha256), sod: .rsaPKCS1v15(.sha256))
        sod.signed = { $0.signatureAlgorithmOverride = D.md5WithRSA }
        try await sod.expectFailed(.signatureAlgorithmNotAllowed)
    }

    /// LDS_H_37 (§6.8.37 → LDS_D_19): a bit of the SignerInfo signature flipped: failed, `sodSignatureInvalid`.
    @Test func LDS_H_37() async throws {
        var sod = try SODCase.standard("H37")
        sod.signed = { $0.signature = .corrupted }
        try await sod.expectFailed(.sodSignatureInvalid)
    }

    /// LDS_H_38 (§6.8.38 → LDS_D_20): the SignerInfo signature left out: failed, `sodSignatureInvalid`.
    @Test func LDS_H_38() async throws {
        var sod = try SODCase.standard("H38")
        sod.signed = { $0.signature = .missing }
        try await sod.expectFailed(.sodSignatureInvalid)
    }

    // MARK: - LDSSecurityObject defects

    /// LDS_H_39 (§6.8.39 → LDS_D_21): LDSSecurityObject version 2: failed, `ldsSecurityObjectInvalid`.
    @Test func LDS_H_39() async throws {
        var sod = try SODCase.standard("H39")
        sod.securityObject.securityObjectVersion = 2
        try await sod.expectFailed(.ldsSecurityObjectInvalid)
    }

    /// LDS_H_40 (§6.8.40 → LDS_D_22): LDSSecurityObject version left out: failed, `ldsSecurityObjectInvalid`.
    @Test func LDS_H_40() async throws {
        var sod = try SODCase.standard("H40")
        sod.rawSecurityObject = { files in
            SODCase.securityObject(D.algorithm(DigestAlgorithm.sha256.oid),
                                   D.sequence(SODCase.hashEntries(files, digest: .sha256).sorted { $0.key < $1.key }.map(\.value)))
        }
        try await sod.expectFailed(.ldsSecurityObjectInvalid)
    }

    /// LDS_H_41 (§6.8.41 → LDS_D_23): LDSSecurityObject hashAlgorithm MD5: failed, `ldsSecurityObjectInvalid`.
    @Test func LDS_H_41() async throws {
        var sod = try SODCase.standard("H41")
        sod.securityObject.securityObjectHashAlgorithm = D.md5
        try await sod.expectFailed(.ldsSecurityObjectInvalid)
    }

    /// LDS_H_42 (§6.8.42 → LDS_D_24): LDSSecurityObject hashAlgorithm left out: failed,
    /// `ldsSecurityObjectInvalid`.
    @Test func LDS_H_42() async throws {
        var sod = try SODCase.standard("H42")
        sod.rawSecurityObject = { files in
            SODCase.securityObject(D.integer(0), D.sequence(SODCase.hashEntries(files, digest: .sha256).sorted { $0.key < $1.key }.map(\.value)))
        }
        try await sod.expectFailed(.ldsSecurityObjectInvalid)
    }

    /// LDS_H_43 (§6.8.43 → LDS_D_25): the SOD (validly signed) holds a wrong DG2 hash: failed,
    /// `dataGroupHashMismatch`, DG2 `invalid` while DG1 is `valid` and the signature and chain verified.
    @Test func LDS_H_43() async throws {
        var sod = try SODCase.standard("H43")
        sod.securityObject.hashOverrides[2] = [UInt8](repeating: 0x43, count: 32)
        let outcome = try await sod.expectFailed(.dataGroupHashMismatch)
        let pa = outcome.result.checks.passiveAuthentication
        #expect(pa.dataGroupHashes?["DG2"] == "invalid")
        #expect(pa.dataGroupHashes?["DG1"] == "valid")
        #expect(pa.dsc != nil && pa.csca != nil)
    }

    /// LDS_H_44 (§6.8.44 → LDS_D_27): no hash for DG1 in the SOD though DG1 is on the chip: failed,
    /// `dataGroupHashMissing`, DG1 `missing`.
    @Test func LDS_H_44() async throws {
        var sod = try SODCase.standard("H44")
        sod.securityObject.omittedHashes = [1]
        let outcome = try await sod.expectFailed(.dataGroupHashMissing)
        #expect(outcome.result.checks.passiveAuthentication.dataGroupHashes?["DG1"] == "missing")
    }

    /// LDS_H_45 (§6.8.45): the SOD also hashes DG10, which the chip does not have (nor EF.COM):
    /// failed, `comSodMismatch`.
    @Test func LDS_H_45() async throws {
        var sod = try SODCase.standard("H45")
        sod.securityObject.extraHashes = [(10, DigestAlgorithm.sha256.hash(Array("DG10".utf8)))]
        try await sod.expectFailed(.comSodMismatch)
    }

    /// LDS_H_46 (§6.8.46): the DG1 entry numbered 0xFF (its hash unchanged): failed,
    /// `ldsSecurityObjectInvalid`.
    @Test func LDS_H_46() async throws {
        var sod = try SODCase.standard("H46")
        sod.rawSecurityObject = { files in
            var entries = SODCase.hashEntries(files, digest: .sha256)
            entries[1] = D.sequence(D.integer(0xFF), D.octetString(DigestAlgorithm.sha256.hash(files[.dg(1)]!)))
            return SODCase.securityObject(D.integer(0), D.algorithm(DigestAlgorithm.sha256.oid),
                                          D.sequence(entries.sorted { $0.key < $1.key }.map(\.value)))
        }
        try await sod.expectFailed(.ldsSecurityObjectInvalid)
    }

    /// LDS_H_47 (§6.8.47): the DG2 entry holds only the hash, no dataGroupNumber: failed,
    /// `ldsSecurityObjectInvalid`.
    @Test func LDS_H_47() async throws {
        var sod = try SODCase.standard("H47")
        sod.rawSecurityObject = { files in
            var entries = SODCase.hashEntries(files, digest: .sha256)
            entries[2] = D.sequence(D.octetString(DigestAlgorithm.sha256.hash(files[.dg(2)]!)))
            return SODCase.securityObject(D.integer(0), D.algorithm(DigestAlgorithm.sha256.oid),
                                          D.sequence(entries.sorted { $0.key < $1.key }.map(\.value)))
        }
        try await sod.expectFailed(.ldsSecurityObjectInvalid)
    }

    // MARK: - Document signer certificate defects (the DSC re-issued by the CSCA after the change)

    /// LDS_H_48 (§6.8.48 → ICAO LDS_D_27 as the plan writes it): the DS certificate's version v2
    /// (value 1) while it carries extensions (RFC 5280 §4.1.2.1, Doc 9303-12 §7.1.1: v3): failed, `dscInvalid`.
    @Test func LDS_H_48() async throws {
        try await SODCase.standard("H48") { $0.version = 1 }.expectNonConforming(.dscInvalid)
    }

    /// LDS_H_49 (§6.8.49 → LDS_D_28): the DS certificate's version field left out (v1 by default, with
    /// extensions): failed, `dscInvalid`.
    @Test func LDS_H_49() async throws {
        try await SODCase.standard("H49") { $0.version = nil }.expectNonConforming(.dscInvalid)
    }

    /// LDS_H_50 (§6.8.50): DS certificate without serialNumber: failed, `dscInvalid`.
    @Test func LDS_H_50() async throws {
        try await SODCase.standard("H50") { $0.omitted = [.serialNumber] }.expectFailed(.dscInvalid)
    }

    /// LDS_H_51 (§6.8.51): the DS certificate's signatureAlgorithm (sha256WithRSAEncryption) differs
    /// from its TBSCertificate signature field (RSASSA-PSS): failed, `dscInvalid`.
    @Test func LDS_H_51() async throws {
        try await SODCase.standard("H51") { $0.outerAlgorithmOverride = D.signatureAlgorithm(.rsaPKCS1v15(.sha256)) }
            .expectFailed(.dscInvalid)
    }

    /// LDS_H_52 (§6.8.52): the TBSCertificate signature field left out: failed, `dscInvalid`.
    @Test func LDS_H_52() async throws {
        try await SODCase.standard("H52") { $0.omitted = [.innerSignature] }.expectFailed(.dscInvalid)
    }

    /// LDS_H_53 (§6.8.53 → LDS_D_29): the DS certificate's issuer name without the countryName that
    /// Doc 9303-12 §7.1.1 requires (the CSCA's subject alike, so that only the naming rule is broken):
    /// failed, `dscInvalid`.
    @Test func LDS_H_53() async throws {
        let name = D.name([(ASN1ObjectIdentifier.NameAttributes.organizationName, "mrtdd TEST ONLY"),
                           (ASN1ObjectIdentifier.NameAttributes.commonName, "mrtdd Conformance CSCA H53")])
        var sod = try SODCase.standard("H53")
        sod.chain = try sod.chain.withCSCA {
            $0.issuer = name
            $0.subject = name
        }.withDSC { $0.issuer = name }
        try await sod.expectNonConforming(.dscInvalid)
    }

    /// LDS_H_54 (§6.8.54): the DS certificate's issuer differs from the CSCA's subject (key identifier
    /// unchanged): the chain cannot be built: failed, `cscaNotFound`.
    @Test func LDS_H_54() async throws {
        try await SODCase.standard("H54") {
            $0.issuer = D.name(country: SODCase.country, organization: "mrtdd TEST ONLY", commonName: "another CSCA H54")
        }.expectFailed(.cscaNotFound)
    }

    /// LDS_H_55 (§6.8.55): the DS certificate's issuer left out: failed, `dscInvalid`.
    @Test func LDS_H_55() async throws {
        try await SODCase.standard("H55") { $0.omitted = [.issuer] }.expectFailed(.dscInvalid)
    }

    /// LDS_H_56 (§6.8.56): the DS validity in GeneralizedTime for dates before 2050: failed, `dscInvalid`.
    @Test func LDS_H_56() async throws {
        try await SODCase.standard("H56") { $0.forceGeneralizedTime = true }.expectFailed(.dscInvalid)
    }

    /// LDS_H_57 (§6.8.57): the DS certificate's validity left out: failed, `dscInvalid`.
    @Test func LDS_H_57() async throws {
        try await SODCase.standard("H57") { $0.omitted = [.validity] }.expectFailed(.dscInvalid)
    }

    /// LDS_H_58 (§6.8.58): the DS subjectPublicKeyInfo algorithm md5WithRSAEncryption instead of
    /// rsaEncryption (same key bits): failed, `dscInvalid`.
    @Test func LDS_H_58() async throws {
        try await SODCase.standard("H58") { template in
            let rsaEncryption: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]
            var spki = template.subjectPublicKeyInfo
            let at = (0...(spki.count - rsaEncryption.count)).first { Array(spki[$0..<($0 + rsaEncryption.count)]) == rsaEncryption }!
            spki[at + rsaEncryption.count - 1] = 0x04  // 1.2.840.113549.1.1.4
            template.subjectPublicKeyInfo = spki
        }.expectFailed(.dscInvalid)
    }

    /// LDS_H_59 (§6.8.59): the DS subjectPublicKeyInfo left out: failed, `dscInvalid`.
    @Test func LDS_H_59() async throws {
        try await SODCase.standard("H59") { $0.subjectPublicKeyInfo = [] }.expectFailed(.dscInvalid)
    }

    /// LDS_H_60 (§6.8.60): the DS authorityKeyIdentifier without keyIdentifier (issuer serial only;
    /// Doc 9303-12 §7.1.1.3 requires keyIdentifier): failed, `dscInvalid`.
    @Test func LDS_H_60() async throws {
        try await SODCase.standard("H60") { $0.authorityKeyIdentifierWithoutKeyID = true }.expectNonConforming(.dscInvalid)
    }

    /// LDS_H_61 (§6.8.61): the DS certificate without authorityKeyIdentifier (mandatory in Doc 9303-12
    /// §7.1.1.3): failed, `dscInvalid`.
    @Test func LDS_H_61() async throws {
        try await SODCase.standard("H61") { $0.authorityKeyIdentifier = nil }.expectNonConforming(.dscInvalid)
    }

    /// LDS_H_62 (§6.8.62): the DS keyUsage not marked critical (Doc 9303-12 §7.1.1.3: critical):
    /// failed, `dscKeyUsageInvalid`.
    @Test func LDS_H_62() async throws {
        try await SODCase.standard("H62") { $0.keyUsageCritical = false }.expectNonConforming(.dscKeyUsageInvalid)
    }

    /// LDS_H_63 (§6.8.63): the DS keyUsage without digitalSignature (nonRepudiation only): failed,
    /// `dscKeyUsageInvalid`.
    @Test func LDS_H_63() async throws {
        try await SODCase.standard("H63") { $0.keyUsage = 0x0002 }.expectFailed(.dscKeyUsageInvalid)
    }

    /// LDS_H_64 (§6.8.64): the DS certificate without keyUsage: failed, `dscKeyUsageInvalid`.
    @Test func LDS_H_64() async throws {
        try await SODCase.standard("H64") { $0.keyUsage = nil }.expectFailed(.dscKeyUsageInvalid)
    }

    /// LDS_H_65 (§6.8.65): md5WithRSAEncryption on the CSCA and DS certificates and the SignerInfo
    /// (digests SHA-256): MD5 refused wherever it is: failed, `signatureAlgorithmNotAllowed`; the DS
    /// certificate alone with MD5 fails the same.
    @Test func LDS_H_65() async throws {
        let base = try Self.algorithmCase("H65", chain: .rsaPKCS1v15(.sha256), sod: .rsaPKCS1v15(.sha256))
        func md5(_ template: inout CertificateBuilder) {
            template.outerAlgorithmOverride = D.md5WithRSA
            template.innerAlgorithmOverride = D.md5WithRSA
        }
        var sod = base
        sod.chain = try base.chain.withCSCA(md5).withDSC(md5)
        sod.signed = { $0.signatureAlgorithmOverride = D.md5WithRSA }
        try await sod.expectFailed(.signatureAlgorithmNotAllowed)
        sod.signed = { _ in }
        try await sod.expectFailed(.signatureAlgorithmNotAllowed)
    }

    /// LDS_H_66 (§6.8.66): the DS certificate's outer signatureAlgorithm left out: failed, `dscInvalid`.
    @Test func LDS_H_66() async throws {
        try await SODCase.standard("H66") { $0.outerAlgorithmOverride = [] }.expectFailed(.dscInvalid)
    }

    /// LDS_H_67 (§6.8.67 → LDS_D_30): a bit of the DS certificate's signature flipped: failed,
    /// `dscSignatureInvalid`.
    @Test func LDS_H_67() async throws {
        try await SODCase.standard("H67") { $0.corruptSignature = true }.expectFailed(.dscSignatureInvalid)
    }

    /// LDS_H_68 (§6.8.68 → LDS_D_31): the DS certificate's signatureValue empty: failed, `dscSignatureInvalid`.
    @Test func LDS_H_68() async throws {
        try await SODCase.standard("H68") { $0.emptySignature = true }.expectFailed(.dscSignatureInvalid)
    }

    /// LDS_H_69 (§6.8.69): DG2's last byte changed after signing (the SOD keeps the original hash): the
    /// hash check comes first and fails: `dataGroupHashMismatch`, DG2 `invalid`, the document `invalid`.
    @Test func LDS_H_69() async throws {
        var sod = try SODCase.standard("H69")
        sod.finish = { files in files[.dg(2)]![files[.dg(2)]!.count - 1] ^= 0xFF }
        let outcome = try await sod.expectFailed(.dataGroupHashMismatch)
        #expect(outcome.result.checks.passiveAuthentication.dataGroupHashes?["DG2"] == "invalid")
    }

    // MARK: - ECDSA with the X9.62 OIDs, mixed algorithms (§6.8.70–6.8.83)

    /// LDS_H_70 (§6.8.70): ecdsa-with-SHA224 (X9.62) throughout, CSCA P-256, DS P-224: successful.
    @Test func LDS_H_70() async throws {
        try await Self.algorithmCase("H70", csca: Self.ec("prime256v1"), dsc: Self.ec("secp224r1"), sod: .ecdsa(.sha224)).expectSuccessful()
    }

    /// LDS_H_71 (§6.8.71): ecdsa-with-SHA256 throughout, P-256 keys: successful.
    @Test func LDS_H_71() async throws {
        try await Self.algorithmCase("H71", csca: Self.ec("prime256v1"), dsc: Self.ec("prime256v1"), sod: .ecdsa(.sha256)).expectSuccessful()
    }

    /// LDS_H_72 (§6.8.72): ecdsa-with-SHA384 throughout, P-384 keys: successful.
    @Test func LDS_H_72() async throws {
        try await Self.algorithmCase("H72", csca: Self.ec("secp384r1"), dsc: Self.ec("secp384r1"), sod: .ecdsa(.sha384)).expectSuccessful()
    }

    /// LDS_H_73 (§6.8.73): ecdsa-with-SHA512 throughout, 512-bit keys (brainpoolP512r1): successful.
    @Test func LDS_H_73() async throws {
        try await Self.algorithmCase("H73", csca: Self.ec("brainpoolP512r1"), dsc: Self.ec("brainpoolP512r1"), sod: .ecdsa(.sha512)).expectSuccessful()
    }

    /// LDS_H_74 (§6.8.74): data group hashes SHA-224, CMS digest and RSASSA-PSS SHA-256: the data groups
    /// are hashed with the LDSSecurityObject's algorithm: successful, digest `SHA-224` reported.
    @Test func LDS_H_74() async throws {
        try await Self.algorithmCase("H74", sod: Self.pss(.sha256), digest: .sha256, lsoDigest: .sha224).expectSuccessful()
    }

    /// LDS_H_75 (§6.8.75): LDSSecurityObject and CMS digest SHA-224, signature RSASSA-PSS SHA-256,
    /// chain RSASSA-PSS SHA-256: successful.
    @Test func LDS_H_75() async throws {
        try await Self.algorithmCase("H75", sod: Self.pss(.sha256), digest: .sha224, lsoDigest: .sha224).expectSuccessful()
    }

    /// LDS_H_76 (§6.8.76): an ECDSA P-256 CSCA signs (ecdsa-with-SHA224) an RSA 2048 DS certificate;
    /// the SOD is RSASSA-PKCS1-v1_5 SHA-256 with SHA-224 digests: successful.
    @Test func LDS_H_76() async throws {
        try await Self.algorithmCase("H76", csca: Self.ec("prime256v1"), chain: .ecdsa(.sha224), sod: .rsaPKCS1v15(.sha256),
                                     digest: .sha224, lsoDigest: .sha224).expectSuccessful()
    }

    /// LDS_H_77 (§6.8.77): SOD RSASSA-PSS SHA-256, chain RSASSA-PSS SHA-224: successful.
    @Test func LDS_H_77() async throws {
        try await Self.algorithmCase("H77", chain: Self.pss(.sha224), sod: Self.pss(.sha256)).expectSuccessful()
    }

    /// LDS_H_78 (§6.8.78): SOD RSASSA-PSS SHA-256, chain RSASSA-PKCS1-v1_5 SHA-256: successful.
    @Test func LDS_H_78() async throws {
        try await Self.algorithmCase("H78", chain: .rsaPKCS1v15(.sha256), sod: Self.pss(.sha256)).expectSuccessful()
    }

    /// LDS_H_79…83: RSASSA-PKCS1-v1_5 whose SignerInfo names the bare rsaEncryption OID; the hash is the
    /// SignerInfo's digestAlgorithm: successful.
    static func rsaEncryptionCase(_ label: String, _ digest: DigestAlgorithm) throws -> SODCase {
        var sod = try algorithmCase(label, sod: .rsaPKCS1v15(digest))
        sod.signed = { $0.signatureAlgorithmOverride = D.algorithm([1, 2, 840, 113549, 1, 1, 1], parameters: D.null()) }
        return sod
    }

    /// LDS_H_79 (§6.8.79): rsaEncryption in the SignerInfo, SHA-1: successful.
    @Test func LDS_H_79() async throws { try await Self.rsaEncryptionCase("H79", .sha1).expectSuccessful() }

    /// LDS_H_80 (§6.8.80): rsaEncryption in the SignerInfo, SHA-224: successful.
    @Test func LDS_H_80() async throws { try await Self.rsaEncryptionCase("H80", .sha224).expectSuccessful() }

    /// LDS_H_81 (§6.8.81): rsaEncryption in the SignerInfo, SHA-256: successful.
    @Test func LDS_H_81() async throws { try await Self.rsaEncryptionCase("H81", .sha256).expectSuccessful() }

    /// LDS_H_82 (§6.8.82): rsaEncryption in the SignerInfo, SHA-384: successful.
    @Test func LDS_H_82() async throws { try await Self.rsaEncryptionCase("H82", .sha384).expectSuccessful() }

    /// LDS_H_83 (§6.8.83): rsaEncryption in the SignerInfo, SHA-512: successful.
    @Test func LDS_H_83() async throws { try await Self.rsaEncryptionCase("H83", .sha512).expectSuccessful() }

    // MARK: - SignerInfo version against its signer identifier (§6.8.84, 6.8.85)

    /// LDS_H_84 (§6.8.84): SignerInfo version 3 with a (correct) issuerAndSerialNumber: failed,
    /// `sodMalformed`, as the plan expects, in the default profile; `tolerate-sod-deviations` finds
    /// and verifies the signer and reports `signerInfoVersionMismatch` (notes/LDS_H.tsv).
    @Test func LDS_H_84() async throws {
        var sod = try SODCase.standard("H84")
        sod.signed = { $0.signerVersion = 3 }
        try await sod.expectNonConforming(.sodMalformed, warning: "signerInfoVersionMismatch")
    }

    /// LDS_H_85 (§6.8.85): SignerInfo version 1 with a (correct) subjectKeyIdentifier: as LDS_H_84,
    /// failed, `sodMalformed`; `tolerate-sod-deviations`: verified, `signerInfoVersionMismatch`.
    @Test func LDS_H_85() async throws {
        var sod = try SODCase.standard("H85")
        let ski = try #require(sod.chain.dscTemplate.subjectKeyIdentifier)
        sod.signed = {
            $0.signerIdentifier = .subjectKeyIdentifier(ski)
            $0.signerVersion = 1
        }
        try await sod.expectNonConforming(.sodMalformed, warning: "signerInfoVersionMismatch")
    }

    // MARK: - LDS 1.8 version info (moved to ICAO LDS_D_35–38)

    /// An LDSSecurityObject of `version` with an optional LDSVersionInfo.
    static func versioned(_ version: Int, ldsVersion: String?) -> ([LDSFile: [UInt8]]) -> [UInt8] {
        { files in
            var parts = [D.integer(version), D.algorithm(DigestAlgorithm.sha256.oid),
                         D.sequence(SODCase.hashEntries(files, digest: .sha256).sorted { $0.key < $1.key }.map(\.value))]
            if let ldsVersion { parts.append(D.sequence(D.printable(ldsVersion), D.printable("040000"))) }
            return D.sequence(parts)
        }
    }

    /// EF.COM of LDS version `version` listing the same data groups.
    static func com(_ version: String) -> (inout [LDSFile: [UInt8]]) -> Void {
        { files in
            let groups = (try? EFCOM(rawBytes: files[.com]!).dataGroups) ?? []
            files[.com] = EFCOM.encode(ldsVersion: version, unicodeVersion: "040000", dataGroups: groups)
        }
    }

    /// LDS_H_86 (§6.8.86 → LDS_D_35): LDSSecurityObject v1 with LDSVersionInfo 0108 / 040000, EF.COM
    /// of LDS 1.8: successful.
    @Test func LDS_H_86() async throws {
        var sod = try SODCase.standard("H86")
        sod.prepare = Self.com("0108")
        sod.rawSecurityObject = Self.versioned(1, ldsVersion: "0108")
        try await sod.expectSuccessful()
    }

    /// LDS_H_87 (§6.8.87 → LDS_D_36): LDSVersionInfo present in a v0 LDSSecurityObject: failed,
    /// `ldsSecurityObjectInvalid`.
    @Test func LDS_H_87() async throws {
        var sod = try SODCase.standard("H87")
        sod.prepare = Self.com("0108")
        sod.rawSecurityObject = Self.versioned(0, ldsVersion: "0108")
        try await sod.expectFailed(.ldsSecurityObjectInvalid)
    }

    /// LDS_H_88 (§6.8.88 → LDS_D_37): an LDS 1.7 SOD (no LDSVersionInfo) declaring version 1: failed,
    /// `ldsSecurityObjectInvalid`, in the default profile; `tolerate-sod-deviations` (the ASN.1 ties
    /// only the presence of LDSVersionInfo to v1) verifies it and reports `ldsVersionInfoMissing`.
    @Test func LDS_H_88() async throws {
        var sod = try SODCase.standard("H88")
        sod.rawSecurityObject = Self.versioned(1, ldsVersion: nil)
        try await sod.expectNonConforming(.ldsSecurityObjectInvalid, warning: "ldsVersionInfoMissing")
    }

    /// LDS_H_89 (§6.8.89 → LDS_D_38): LDSVersionInfo of a future LDS 1.9 (EF.COM alike): the reader
    /// still performs passive authentication: successful.
    @Test func LDS_H_89() async throws {
        var sod = try SODCase.standard("H89")
        sod.prepare = Self.com("0109")
        sod.rawSecurityObject = Self.versioned(1, ldsVersion: "0109")
        try await sod.expectSuccessful()
    }

    // MARK: - EF.COM against the SOD, EF.CardSecurity (§6.8.90–6.8.93)

    /// LDS_H_90 (§6.8.90, CFG.DFLT.PACE): EF.DG3 on the chip but not in EF.COM; the SOD hashes DG3
    /// too: EF.COM and SOD disagree: failed, `comSodMismatch`.
    @Test func LDS_H_90() async throws {
        var sod = try SODCase.standard("H90")
        sod.profile = .pace
        sod.prepare = { $0[.dg(3)] = SpecimenDocument.biometricDataGroups()[3] }
        try await sod.expectFailed(.comSodMismatch)
    }

    /// LDS_H_91 (§6.8.91): the SOD omits DG2, which EF.COM lists and the chip holds: failed,
    /// `dataGroupHashMissing` (DG2 read but not covered).
    @Test func LDS_H_91() async throws {
        var sod = try SODCase.standard("H91")
        sod.securityObject.omittedHashes = [2]
        let outcome = try await sod.expectFailed(.dataGroupHashMissing)
        #expect(outcome.result.checks.passiveAuthentication.dataGroupHashes?["DG2"] == "missing")
    }

    /// LDS_H_92 (§6.8.92, CFG.DFLT.PACE): the SOD's DG2 entry replaced by one for DG3 (present as a
    /// file, not in EF.COM): failed, `dataGroupHashMissing` for DG2.
    @Test func LDS_H_92() async throws {
        var sod = try SODCase.standard("H92")
        sod.profile = .pace
        sod.prepare = { $0[.dg(3)] = SpecimenDocument.biometricDataGroups()[3] }
        sod.securityObject.omittedHashes = [2]
        let outcome = try await sod.expectFailed(.dataGroupHashMissing)
        #expect(outcome.result.checks.passiveAuthentication.dataGroupHashes?["DG2"] == "missing")
    }

    /// LDS_H_93 (§6.8.93, CFG.DFLT.PACE as the plan has it: PACE GM, EF.CardSecurity read after
    /// PACE): EF.CardSecurity whose signature value is wrong: its integrity check fails: failed,
    /// `cardSecurityInvalid`.
    @Test func LDS_H_93() async throws {
        var chip = try ConformanceProfile.pace.document().chip()
        var cardSecurity = try #require(chip.files[.cardSecurity])
        cardSecurity[cardSecurity.count - 1] ^= 0x5A
        chip.files[.cardSecurity] = cardSecurity
        let outcome = await Conformance.read(chip, try Conformance.options())
        #expect(outcome.result.access?.mapping == "GM")
        SODCase.expectFailed(outcome, .cardSecurityInvalid)
        #expect(outcome.result.checks.passiveAuthentication.dataGroupHashes?["EF_CardSecurity"] == "invalid")
    }

    // MARK: - RSASSA-PSS with the remaining hashes (§6.8.94–6.8.96)

    /// LDS_H_94 (§6.8.94): RSASSA-PSS with SHA-224 throughout: successful.
    @Test func LDS_H_94() async throws { try await Self.algorithmCase("H94", sod: Self.pss(.sha224)).expectSuccessful() }

    /// LDS_H_95 (§6.8.95): RSASSA-PSS with SHA-384 throughout: successful.
    @Test func LDS_H_95() async throws { try await Self.algorithmCase("H95", sod: Self.pss(.sha384)).expectSuccessful() }

    /// LDS_H_96 (§6.8.96): RSASSA-PSS with SHA-512 throughout: successful.
    @Test func LDS_H_96() async throws { try await Self.algorithmCase("H96", sod: Self.pss(.sha512)).expectSuccessful() }

    // MARK: - DSA with SHA-2 (§6.8.97, 6.8.98)

    /// LDS_H_97 (§6.8.97): DSA with SHA-224 throughout (dsa-with-sha224): successful.
    @Test func LDS_H_97() async throws {
        try await Self.algorithmCase("H97", csca: Self.dsaCSCA, dsc: Self.dsaDSC, sod: .dsa(.sha224)).expectSuccessful()
    }

    /// LDS_H_98 (§6.8.98): DSA with SHA-256 throughout (dsa-with-sha256): successful.
    @Test func LDS_H_98() async throws {
        try await Self.algorithmCase("H98", csca: Self.dsaCSCA, dsc: Self.dsaDSC, sod: .dsa(.sha256)).expectSuccessful()
    }
}
