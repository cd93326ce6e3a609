internal import CLibCrypto

/// Produces CMS SignedData (RFC 5652 §5), the container of the SOD (Doc 9303-10 §4.6.2) and of
/// EF.CardSecurity; used by the test fixture generator.
public enum CMSSigner {
    /// RFC 5652 SignedData in a ContentInfo, DER: eContent encapsulated (not detached),
    /// eContentType = `eContentTypeOID` (dotted), the signer certificate included, SignerInfo v1
    /// (issuerAndSerialNumber), signed attributes contentType, signingTime and messageDigest
    /// (RFC 5652 §5.3 requires the first and last whenever eContentType is not id-data), digest
    /// `digest`, and a signature by the key's type (ECDSA, or RSA PKCS #1 v1.5).
    /// `certificateDER` is the signer's certificate, DER-encoded.
    public static func sign(
        content: [UInt8], eContentTypeOID: String, certificateDER: [UInt8], privateKey: PrivateKey,
        digest: DigestAlgorithm
    ) throws(CryptoError) -> [UInt8] {
        try sign(content: content, eContentTypeOID: eContentTypeOID,
                 certificate: X509Certificate(derEncoded: certificateDER), privateKey: privateKey, digest: digest)
    }

    static func sign(
        content: [UInt8], eContentTypeOID: String, certificate: X509Certificate, privateKey: PrivateKey,
        digest: DigestAlgorithm
    ) throws(CryptoError) -> [UInt8] {
        let flags = UInt32(CMS_PARTIAL | CMS_BINARY | CMS_NOSMIMECAP)
        guard let object = OBJ_txt2obj(eContentTypeOID, 1) else {
            CryptoError.clearOpenSSLQueue()
            throw .invalidInput("eContentType is not a dotted OID: \(eContentTypeOID)")
        }
        defer { ASN1_OBJECT_free(object) }
        guard let created = CMS_sign(nil, nil, nil, nil, flags) else { throw .openSSLQueue("CMS_sign") }
        let cms = CMSHandle(taking: created)
        guard CMS_set1_eContentType(cms.pointer, object) == 1 else { throw .openSSLQueue("CMS_set1_eContentType") }
        guard CMS_add1_signer(cms.pointer, certificate.handle.pointer, privateKey.handle.pointer,
                              FetchedAlgorithms.shared.digest(digest), flags) != nil
        else { throw .openSSLQueue("CMS_add1_signer") }
        let data = try MemoryBIO(content)
        guard CMS_final(cms.pointer, data.pointer, nil, flags) == 1 else { throw .openSSLQueue("CMS_final") }

        return try encodeDER("i2d_CMS_ContentInfo") { i2d_CMS_ContentInfo(cms.pointer, $0) }
    }
}

/// What a signature check of a SignedData found; internal, for tests of `CMSSigner` until passive
/// authentication brings the real verifier.
struct CMSSignedDataSummary: Equatable {
    var eContentTypeOID: String
    var content: [UInt8]
    var signerCount: Int
    var digestOID: String?
    var signerIdentifiedByIssuerAndSerial: Bool
    var hasContentTypeAttribute: Bool
    var hasMessageDigestAttribute: Bool

    /// Parses `der` as a ContentInfo and runs `CMS_verify` against `certificate` only (no chain
    /// validation, no certificates taken from the message).
    static func verify(der: [UInt8], certificate: X509Certificate) throws(CryptoError) -> CMSSignedDataSummary {
        var consumed = 0
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let cms = d2i_CMS_ContentInfo(nil, &cursor, buffer.count)
            if let cursor, let base = buffer.baseAddress { consumed = cursor - base }
            return cms
        }
        guard let parsed else { throw .openSSLQueue("d2i_CMS_ContentInfo") }
        let cms = CMSHandle(taking: parsed)
        guard consumed == der.count else { throw .invalidInput("\(der.count - consumed) bytes after the ContentInfo") }

        let certificates = try X509Stack()
        try certificates.push(certificate.handle)
        let output = try MemoryBIO()
        let flags = UInt32(CMS_NO_SIGNER_CERT_VERIFY | CMS_NOINTERN | CMS_BINARY)
        guard CMS_verify(cms.pointer, certificates.pointer, nil, nil, output.pointer, flags) == 1 else {
            throw .openSSLQueue("CMS_verify")
        }
        guard let eContentType = dottedOID(CMS_get0_eContentType(cms.pointer)) else {
            throw .invalidInput("no eContentType")
        }
        var summary = CMSSignedDataSummary(
            eContentTypeOID: eContentType, content: output.contents, signerCount: 0, digestOID: nil,
            signerIdentifiedByIssuerAndSerial: false, hasContentTypeAttribute: false, hasMessageDigestAttribute: false)
        guard let signers = CMS_get0_SignerInfos(cms.pointer) else { return summary }
        summary.signerCount = Int(mrtd_sk_CMS_SignerInfo_num(signers))
        guard summary.signerCount > 0, let signer = mrtd_sk_CMS_SignerInfo_value(signers, 0) else { return summary }
        var digestAlgorithm: UnsafeMutablePointer<X509_ALGOR>? = nil
        CMS_SignerInfo_get0_algs(signer, nil, nil, &digestAlgorithm, nil)
        if let digestAlgorithm {
            var object: OpaquePointer? = nil
            X509_ALGOR_get0(&object, nil, nil, digestAlgorithm)
            summary.digestOID = dottedOID(object)
        }
        var issuer: OpaquePointer? = nil
        var serial: UnsafeMutablePointer<ASN1_INTEGER>? = nil
        if CMS_SignerInfo_get0_signer_id(signer, nil, &issuer, &serial) == 1 {
            summary.signerIdentifiedByIssuerAndSerial = issuer != nil && serial != nil
        }
        summary.hasContentTypeAttribute = CMS_signed_get_attr_by_NID(signer, NID_pkcs9_contentType, -1) >= 0
        summary.hasMessageDigestAttribute = CMS_signed_get_attr_by_NID(signer, NID_pkcs9_messageDigest, -1) >= 0
        return summary
    }
}
