public import SwiftASN1
import MRTDCore

/// What checking an Active Authentication signature found. A wrong signature is a result, not an
/// error: errors are for keys and inputs that cannot be processed at all.
public struct ActiveAuthenticationVerification: Sendable, Equatable {
    /// Whether the signature verifies.
    public var isValid: Bool
    /// Why it does not (a short stable phrase), `nil` when valid.
    public var failure: String?
    /// `RSA-ISO9796-2` or `ECDSA`.
    public var algorithm: String
    /// The hash the signature uses (from the ISO/IEC 9796-2 trailer, or for ECDSA from
    /// ActiveAuthenticationInfo or, without it, the first that verifies).
    public var digest: DigestAlgorithm?
    /// ECDSA only: `plain` (r||s, BSI TR-03111 §5.2.1) or `DER` (X9.62 `ECDSA-Sig-Value`).
    public var signatureFormat: String?
}

extension DigestAlgorithm {
    /// The hash of an ECDSA signature algorithm OID: BSI TR-03111 `ecdsa-plain-SHA*`
    /// (0.4.0.127.0.7.1.1.4.1.x) or ANSI X9.62 `ecdsa-with-SHA*`; `nil` for any other OID.
    public init?(ecdsaSignatureAlgorithmOID oid: ASN1ObjectIdentifier) {
        switch oid {
        case [0, 4, 0, 127, 0, 7, 1, 1, 4, 1, 1], [1, 2, 840, 10045, 4, 1]: self = .sha1
        case [0, 4, 0, 127, 0, 7, 1, 1, 4, 1, 2], [1, 2, 840, 10045, 4, 3, 1]: self = .sha224
        case [0, 4, 0, 127, 0, 7, 1, 1, 4, 1, 3], [1, 2, 840, 10045, 4, 3, 2]: self = .sha256
        case [0, 4, 0, 127, 0, 7, 1, 1, 4, 1, 4], [1, 2, 840, 10045, 4, 3, 3]: self = .sha384
        case [0, 4, 0, 127, 0, 7, 1, 1, 4, 1, 5], [1, 2, 840, 10045, 4, 3, 4]: self = .sha512
        default: return nil
        }
    }

    /// The ISO/IEC 10118-3 hash-function identifier used in ISO/IEC 9796-2 trailers (`xx CC`).
    public var iso10118Identifier: UInt8 {
        switch self {
        case .sha1: 0x33
        case .sha256: 0x34
        case .sha512: 0x35
        case .sha384: 0x36
        case .sha224: 0x38
        }
    }

    init?(iso10118Identifier id: UInt8) {
        guard let match = DigestAlgorithm.allCases.first(where: { $0.iso10118Identifier == id }) else { return nil }
        self = match
    }
}

extension ActiveAuthenticationPublicKey {
    /// Verifies the chip's answer to INTERNAL AUTHENTICATE over `challenge` (Doc 9303-11 §6.1.2).
    ///
    /// - RSA: ISO/IEC 9796-2 digital signature scheme 1 with partial message recovery: the recovered
    ///   representative is `6A || M1 || H(M1 || challenge) || trailer`, the trailer `BC` (SHA-1,
    ///   implicit) or `xx CC` naming the hash (ISO/IEC 10118-3).
    /// - EC: ECDSA over the challenge, the signature plain `r || s` (BSI TR-03111) or DER, the hash
    ///   `ecdsaDigest` (from ActiveAuthenticationInfo's signatureAlgorithm); `nil` tries each SHA.
    public func verify(
        challenge: [UInt8], signature: [UInt8], ecdsaDigest: DigestAlgorithm? = nil
    ) throws(CryptoError) -> ActiveAuthenticationVerification {
        switch keyType {
        case .rsa: return try verifyISO9796Part2(challenge: challenge, signature: signature)
        case .ec: return try verifyECDSA(challenge: challenge, signature: signature, digest: ecdsaDigest)
        }
    }

    private func verifyISO9796Part2(challenge: [UInt8], signature: [UInt8]) throws(CryptoError) -> ActiveAuthenticationVerification {
        var result = ActiveAuthenticationVerification(isValid: false, failure: nil, algorithm: "RSA-ISO9796-2")
        let modulusLength = (bits + 7) / 8
        guard !signature.isEmpty, signature.count <= modulusLength else {
            result.failure = "signature length \(signature.count) does not fit the \(bits)-bit modulus"
            return result
        }
        let recovered: [UInt8]
        do {
            recovered = try rsaPublicOperation(signature)
        } catch {
            result.failure = "signature is not smaller than the modulus"
            return result
        }
        var candidates = [recovered]
        // ISO/IEC 9796-2 Annex B: a signer may send n - J^d; then the trailer nibble is not C.
        if recovered.last.map({ $0 & 0x0F != 0x0C }) ?? true, let alternative = try? rsaModulusMinus(recovered) {
            candidates.append(alternative)
        }
        var failure = "no ISO/IEC 9796-2 message representative"
        for candidate in candidates {
            switch ISO9796Part2.check(representative: candidate, modulusBits: bits, m2: challenge) {
            case .success(let digest):
                result.isValid = true
                result.digest = digest
                return result
            case .failure(let reason):
                failure = reason.rawValue
                if reason == .hashMismatch { break }
            }
        }
        result.failure = failure
        return result
    }

    private func verifyECDSA(
        challenge: [UInt8], signature: [UInt8], digest: DigestAlgorithm?
    ) throws(CryptoError) -> ActiveAuthenticationVerification {
        var result = ActiveAuthenticationVerification(isValid: false, failure: nil, algorithm: "ECDSA", digest: digest)
        let der: [UInt8]
        if let parsed = ECDSASignatureEncoding.derComponents(signature) {
            der = ECDSASignatureEncoding.der(r: parsed.r, s: parsed.s)
            result.signatureFormat = "DER"
        } else if signature.count % 2 == 0, !signature.isEmpty, signature.count <= 2 * ((bits + 7) / 8) {
            let half = signature.count / 2
            der = ECDSASignatureEncoding.der(r: Array(signature[..<half]), s: Array(signature[half...]))
            result.signatureFormat = "plain"
        } else {
            result.failure = "signature is neither plain r||s nor DER"
            return result
        }
        let digests = digest.map { [$0] } ?? [.sha1, .sha224, .sha256, .sha384, .sha512]
        for candidate in digests where try ecdsaVerify(derSignature: der, digest: candidate.hash(challenge)) {
            result.isValid = true
            result.digest = candidate
            return result
        }
        result.failure = "ECDSA signature does not verify"
        return result
    }
}

/// ISO/IEC 9796-2:2010 digital signature scheme 1 message representatives, as Active Authentication
/// uses them (Doc 9303-11 §6.1.2 and Appendix F).
public enum ISO9796Part2 {
    /// Why a recovered representative is rejected.
    public enum Failure: String, Error, Sendable {
        case header = "recovered block lacks the ISO/IEC 9796-2 header"
        case fullRecovery = "recovered block announces full message recovery; the challenge must not be recoverable"
        case trailer = "recovered block has an unknown trailer"
        case padding = "recovered block has malformed padding"
        case length = "recovered block too short for its hash"
        case hashMismatch = "hash of M1 || challenge does not match"
    }

    /// Checks a recovered representative `F` against the non-recoverable part `m2` and returns the
    /// hash it uses.
    public static func check(representative f: [UInt8], modulusBits: Int, m2: [UInt8]) -> Result<DigestAlgorithm, Failure> {
        // F has |n| - 1 bits: drop the leading zero bytes of the modulus-length block.
        let length = (modulusBits - 1 + 7) / 8
        guard f.count >= length, f.prefix(f.count - length).allSatisfy({ $0 == 0 }) else { return .failure(.header) }
        let block = f.suffix(length)
        guard let first = block.first, first & 0xC0 == 0x40 else { return .failure(.header) }
        guard first & 0x20 != 0 else { return .failure(.fullRecovery) }
        let digest: DigestAlgorithm
        let trailerLength: Int
        let end = block.endIndex
        switch block.last {
        case 0xBC:
            digest = .sha1
            trailerLength = 1
        case 0xCC:
            guard block.count >= 2, let named = DigestAlgorithm(iso10118Identifier: block[end - 2]) else {
                return .failure(.trailer)
            }
            digest = named
            trailerLength = 2
        default:
            return .failure(.trailer)
        }
        var start = block.startIndex + 1
        switch first & 0x0F {
        case 0x0A: break
        case 0x0B:
            while start < end && block[start] == 0xBB { start += 1 }
            guard start < end, block[start] == 0xBA else { return .failure(.padding) }
            start += 1
        default:
            return .failure(.padding)
        }
        let hashStart = end - trailerLength - digest.outputLength
        guard hashStart >= start else { return .failure(.length) }
        var message = [UInt8]()
        message.reserveCapacity(hashStart - start + m2.count)
        message.append(contentsOf: block[start..<hashStart])
        message.append(contentsOf: m2)
        let computed = digest.hash(message)
        var diff: UInt8 = 0
        for i in 0..<digest.outputLength { diff |= computed[i] ^ block[hashStart + i] }
        return diff == 0 ? .success(digest) : .failure(.hashMismatch)
    }

    /// The representative `6A || M1 || H(M1 || m2) || trailer` for a modulus of `modulusBits`, with
    /// `M1` taken from `random`: what a chip signs (used by the virtual chip).
    public static func representative(
        modulusBits: Int, m2: [UInt8], digest: DigestAlgorithm, random: any RandomSource
    ) throws -> [UInt8] {
        let length = (modulusBits - 1 + 7) / 8
        let trailer: [UInt8] = digest == .sha1 ? [0xBC] : [digest.iso10118Identifier, 0xCC]
        let m1Length = length - 1 - digest.outputLength - trailer.count
        guard m1Length > 0 else { throw CryptoError.invalidInput("modulus too small for \(digest.rawValue)") }
        let m1 = try random.randomBytes(m1Length)
        return [0x6A] + m1 + digest.hash(m1 + m2) + trailer
    }
}

/// Conversions between the two ECDSA signature encodings.
public enum ECDSASignatureEncoding {
    /// `r` and `s` of a DER `ECDSA-Sig-Value` (X9.62), or `nil` when `bytes` is not exactly one.
    public static func derComponents(_ bytes: [UInt8]) -> (r: [UInt8], s: [UInt8])? {
        guard bytes.first == 0x30, let sequence = try? TLV.parse(bytes), let parts = try? sequence.children(),
              parts.count == 2, parts.allSatisfy({ $0.tag == 0x02 && !$0.value.isEmpty })
        else { return nil }
        return (parts[0].bytes, parts[1].bytes)
    }

    /// DER `SEQUENCE { INTEGER r, INTEGER s }` from unsigned big-endian `r` and `s`.
    public static func der(r: [UInt8], s: [UInt8]) -> [UInt8] {
        func integer(_ value: [UInt8]) -> [UInt8] {
            var magnitude = Array(value.drop { $0 == 0 })
            if magnitude.isEmpty { magnitude = [0] }
            if magnitude[0] & 0x80 != 0 { magnitude.insert(0, at: 0) }
            return TLV.encode(tag: 0x02, value: magnitude)
        }
        return TLV.encode(tag: 0x30, children: [integer(r), integer(s)])
    }

    /// Plain `r || s`, each left-padded to `length` bytes (BSI TR-03111 §5.2.1).
    public static func plain(der: [UInt8], length: Int) -> [UInt8]? {
        guard let (r, s) = derComponents(der) else { return nil }
        func pad(_ v: [UInt8]) -> [UInt8]? {
            let stripped = Array(v.drop { $0 == 0 })
            guard stripped.count <= length else { return nil }
            return [UInt8](repeating: 0, count: length - stripped.count) + stripped
        }
        guard let pr = pad(r), let ps = pad(s) else { return nil }
        return pr + ps
    }
}
