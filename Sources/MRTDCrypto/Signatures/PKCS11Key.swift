internal import CPKCS11
import FoundationEssentials
import MRTDCore
import MRTDPlatform

/// A private key in a PKCS #11 token (an HSM, or SoftHSM2 in tests), named by an RFC 7512 URI:
/// `pkcs11:token=LABEL;object=LABEL;id=%01?module-path=/usr/lib/softhsm/libsofthsm2.so&pin-value=1234`
/// (`pin-source=file:/path` reads the PIN from a file). The key never leaves the token; the PIN is
/// kept only in memory and never printed (``description`` redacts it).
public struct PKCS11Key: Sendable, CustomStringConvertible {
    public let modulePath: String
    public let token: String?
    public let object: String?
    public let id: [UInt8]?
    let pin: String?

    /// Parses the URI; `defaultModule` is used when it has no `module-path`.
    public init(uri: String, defaultModule: String? = nil) throws(CryptoError) {
        guard uri.hasPrefix("pkcs11:") else { throw .unsupported("not a pkcs11: URI") }
        let rest = uri.dropFirst("pkcs11:".count)
        let parts = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var path: [String: String] = [:], query: [String: String] = [:]
        func attributes(_ text: Substring, separator: Character) throws(CryptoError) -> [String: String] {
            var out: [String: String] = [:]
            for item in text.split(separator: separator) {
                let kv = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard kv.count == 2, let value = kv[1].percentDecoded else {
                    throw .unsupported("malformed PKCS #11 URI attribute")
                }
                out[String(kv[0])] = value
            }
            return out
        }
        path = try attributes(parts[0], separator: ";")
        if parts.count > 1 { query = try attributes(parts[1], separator: "&") }
        guard let module = query["module-path"] ?? defaultModule else {
            throw .unsupported("PKCS #11 URI without module-path")
        }
        modulePath = module
        token = path["token"]
        object = path["object"]
        if let type = path["type"], type != "private" { throw .unsupported("PKCS #11 URI type \(type) is not a private key") }
        if let rawID = parts[0].split(separator: ";").first(where: { $0.hasPrefix("id=") }) {
            id = try Self.percentDecodedBytes(rawID.dropFirst(3))
        } else {
            id = nil
        }
        guard object != nil || id != nil else { throw .unsupported("PKCS #11 URI names no object or id") }
        if let value = query["pin-value"] {
            pin = value
        } else if let source = query["pin-source"] {
            let file = source.hasPrefix("file:") ? String(source.dropFirst(5)) : source
            guard let text = try? FileContents.text(file, limit: 4096) else {
                throw .unsupported("PKCS #11 pin-source cannot be read")
            }
            pin = text.trimming(while: \.isNewline)
        } else {
            pin = nil
        }
    }

    private static func percentDecodedBytes(_ text: Substring) throws(CryptoError) -> [UInt8] {
        var out: [UInt8] = []
        var i = text.startIndex
        while i < text.endIndex {
            if text[i] == "%" {
                let end = text.index(i, offsetBy: 3, limitedBy: text.endIndex) ?? text.endIndex
                guard end > text.index(after: i), let byte = UInt8(text[text.index(after: i)..<end], radix: 16), text.distance(from: i, to: end) == 3 else {
                    throw .unsupported("malformed id in PKCS #11 URI")
                }
                out.append(byte)
                i = end
            } else {
                out += Array(String(text[i]).utf8)
                i = text.index(after: i)
            }
        }
        return out
    }

    public var description: String {
        "PKCS11Key(module: \(modulePath), token: \(token ?? "*"), object: \(object ?? "-"), pin: \(pin == nil ? "none" : "<redacted>"))"
    }

    /// Signs `message` under `scheme` in the token: ECDSA (`CKM_ECDSA` over the digest: the answer
    /// is already the plain `r || s` of TR-03111), RSA v1.5 and PSS with the hash mechanisms.
    /// Blocking (the module may talk to hardware): runs on its own thread.
    public func sign(message: [UInt8], scheme: SignatureScheme) async throws(CryptoError) -> [UInt8] {
        let mechanism: UInt, data: [UInt8]
        var pss: (UInt, UInt, UInt) = (0, 0, 0)
        func hashMechanisms(_ d: DigestAlgorithm) -> (rsa: UInt, pss: UInt, hash: UInt, mgf: UInt) {
            switch d {
            case .sha1: (0x06, 0x0E, 0x220, 1)
            case .sha224: (0x46, 0x47, 0x255, 5)
            case .sha256: (0x40, 0x43, 0x250, 2)
            case .sha384: (0x41, 0x44, 0x260, 3)
            case .sha512: (0x42, 0x45, 0x270, 4)
            }
        }
        switch scheme {
        case .ecdsaPlain(let digest):
            mechanism = 0x1041  // CKM_ECDSA
            data = digest.hash(message)
        case .rsaPKCS1v15(let digest):
            mechanism = hashMechanisms(digest).rsa
            data = message
        case .rsaPSS(let digest, let mgf1, let salt):
            mechanism = hashMechanisms(digest).pss
            pss = (hashMechanisms(digest).hash, hashMechanisms(mgf1).mgf, UInt(salt))
            data = message
        case .ecdsa:
            throw .unsupported("DER ECDSA from PKCS #11")
        case .dsa:
            throw .unsupported("DSA from PKCS #11")
        }
        let key = self
        let parameters = pss
        let result: Result<[UInt8], CryptoError> = await withCheckedContinuation { continuation in
            BlockingThread.detach(name: "pkcs11-sign") {
                continuation.resume(returning: key.signBlocking(mechanism: mechanism, pss: parameters, data: data))
            }
        }
        return try result.get()
    }

    private func signBlocking(mechanism: UInt, pss: (UInt, UInt, UInt), data: [UInt8]) -> Result<[UInt8], CryptoError> {
        // The module is dlopen'ed into this process: root's own files only.
        if let problem = FileProvenance.problemLoadingCode(modulePath) {
            return .failure(.unsupported("PKCS #11: module-path \(modulePath) \(problem)"))
        }
        var out = [UInt8](repeating: 0, count: 1024)
        var length = out.count
        var rv: UInt = 0
        let idBytes = id ?? []
        let step = out.withUnsafeMutableBufferPointer { output in
            data.withUnsafeBufferPointer { input in
                idBytes.withUnsafeBufferPointer { idBuffer in
                    mrtdd_pkcs11_sign(
                        modulePath, token, object, idBuffer.baseAddress, idBuffer.count, pin, mechanism, pss.0, pss.1, pss.2,
                        input.baseAddress, input.count, output.baseAddress, &length, &rv)
                }
            }
        }
        guard step == 0 else {
            let what = ["", "module not loadable", "C_Initialize failed", "no token with that label", "C_OpenSession failed",
                        "login refused", "no single private key with that label/id", "C_Sign failed", "signature too long"]
            return .failure(.unsupported("PKCS #11: \(what[Int(step)]) (CKR 0x\(String(rv, radix: 16)))"))
        }
        return .success(Array(out.prefix(length)))
    }
}
