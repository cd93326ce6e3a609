internal import CLibCrypto

/// OpenSSL's view of an X.509 certificate (RFC 5280), held with its DER bytes: an implementation
/// detail of this module (CMS signing). The certificate type of the rest of the code base is
/// `MRTDVerification.Certificate`, parsed with swift-asn1; it crosses into this module as DER.
struct X509Certificate: Sendable, Equatable {
    /// The certificate exactly as encoded.
    let derBytes: [UInt8]
    /// The subject as an RFC 2253 string (`CN=Test,C=UT`).
    let subject: String
    /// The issuer as an RFC 2253 string.
    let issuer: String
    /// The serial number's magnitude in upper-case hex, two digits per byte (`-` prefix if negative).
    let serialNumberHex: String

    let handle: X509Handle

    /// Parses one DER-encoded certificate; trailing bytes are rejected.
    init(derEncoded: [UInt8]) throws(CryptoError) {
        guard !derEncoded.isEmpty else { throw .invalidInput("empty certificate") }
        var consumed = 0
        let parsed: OpaquePointer? = derEncoded.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let certificate = d2i_X509(nil, &cursor, buffer.count)
            if let cursor, let base = buffer.baseAddress { consumed = cursor - base }
            return certificate
        }
        guard let parsed else { throw .openSSLQueue("d2i_X509") }
        let handle = X509Handle(taking: parsed)
        guard consumed == derEncoded.count else {
            throw .invalidInput("\(derEncoded.count - consumed) bytes after the certificate")
        }
        try self.init(handle: handle, derBytes: derEncoded)
    }

    /// Parses every `CERTIFICATE` block of a PEM text, in order. Throws if there is none.
    static func parsePEM(_ pem: String) throws(CryptoError) -> [X509Certificate] {
        let bio = try MemoryBIO(pem.utf8)
        var certificates: [X509Certificate] = []
        while true {
            guard let parsed = PEM_read_bio_X509(bio.pointer, nil, nil, nil) else {
                let reason = ERR_GET_REASON(ERR_peek_last_error())
                if reason == PEM_R_NO_START_LINE, !certificates.isEmpty {
                    CryptoError.clearOpenSSLQueue()
                    break
                }
                if reason == PEM_R_NO_START_LINE {
                    CryptoError.clearOpenSSLQueue()
                    throw .invalidInput("no certificate in PEM text")
                }
                throw .openSSLQueue("PEM_read_bio_X509")
            }
            let handle = X509Handle(taking: parsed)
            try certificates.append(X509Certificate(handle: handle, derBytes: encodeDER(handle)))
        }
        return certificates
    }

    init(handle: X509Handle, derBytes: [UInt8]) throws(CryptoError) {
        self.handle = handle
        self.derBytes = derBytes
        subject = try Self.rfc2253(X509_get_subject_name(handle.pointer))
        issuer = try Self.rfc2253(X509_get_issuer_name(handle.pointer))
        serialNumberHex = Self.serialHex(X509_get0_serialNumber(handle.pointer))
    }

    static func == (lhs: X509Certificate, rhs: X509Certificate) -> Bool {
        lhs.derBytes == rhs.derBytes
    }

    private static func encodeDER(_ handle: X509Handle) throws(CryptoError) -> [UInt8] {
        try MRTDCrypto.encodeDER("i2d_X509") { i2d_X509(handle.pointer, $0) }
    }

    private static func rfc2253(_ name: OpaquePointer?) throws(CryptoError) -> String {
        guard let name else { return "" }
        let bio = try MemoryBIO()
        guard X509_NAME_print_ex(bio.pointer, name, 0, mrtd_XN_FLAG_RFC2253()) >= 0 else {
            throw .openSSLQueue("X509_NAME_print_ex")
        }
        return String(decoding: bio.contents, as: UTF8.self)
    }

    private static func serialHex(_ serial: UnsafePointer<ASN1_INTEGER>?) -> String {
        guard let serial, let data = ASN1_STRING_get0_data(serial) else { return "00" }
        let length = Int(ASN1_STRING_length(serial))
        if length == 0 { return "00" }
        let digits = UnsafeBufferPointer(start: data, count: length).map { byte in
            let text = String(byte, radix: 16, uppercase: true)
            return byte < 0x10 ? "0" + text : text
        }.joined()
        return ASN1_STRING_type(serial) == V_ASN1_NEG_INTEGER ? "-" + digits : digits
    }
}
