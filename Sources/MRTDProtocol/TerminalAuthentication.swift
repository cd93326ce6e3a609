public import MRTDCore
public import MRTDCrypto
public import MRTDVerification

/// Why Terminal Authentication did not pass. Each has a stable code (`checks.terminalAuthentication.reason`).
public enum TerminalAuthenticationFailure: Sendable, Equatable, CaseIterable, CodedError {
    /// No certificate chain in the terminal directory starts at a trust point of the chip's EF.CVCA.
    case trustPointUnknown
    /// The directory knows the chip's CVCA, but the DV above the IS certificate was issued by another CVCA.
    case dvNotUnderTrustPoint
    /// A certificate of the chain is expired at the reference date.
    case certificateExpired
    /// A certificate of the chain is not yet valid at the reference date.
    case certificateNotYetValid
    /// A certificate's signature does not verify under its issuer's key.
    case certificateSignatureInvalid
    /// The certificate presented as the terminal's is not an inspection-system certificate (role or type).
    case roleInvalid
    /// The chain's access rights grant none of the EAC-protected data groups asked for (DG3, DG4).
    case rightsExcludeDataGroups
    /// The chip refused a certificate (PSO:Verify Certificate or MSE:Set DST).
    case certificateRejected
    /// The chip refused the terminal's signature (EXTERNAL AUTHENTICATE), or a step before it.
    case signatureRejected
    /// The terminal key could not sign (file unreadable, HSM refused).
    case keyUnavailable
    /// EF.CVCA is missing or malformed.
    case efCVCAInvalid

    /// The stable code.
    public var errorCode: ErrorCode {
        switch self {
        case .trustPointUnknown: .terminalTrustPointUnknown
        case .dvNotUnderTrustPoint: .terminalDVNotUnderTrustPoint
        case .certificateExpired: .terminalCertificateExpired
        case .certificateNotYetValid: .terminalCertificateNotYetValid
        case .certificateSignatureInvalid: .terminalCertificateSignatureInvalid
        case .roleInvalid: .terminalCertificateRoleInvalid
        case .rightsExcludeDataGroups: .terminalRightsExcludeDataGroups
        case .certificateRejected: .terminalCertificateRejectedByChip
        case .signatureRejected: .terminalSignatureRejectedByChip
        case .keyUnavailable: .terminalKeyUnavailable
        case .efCVCAInvalid: .terminalEFCVCAInvalid
        }
    }

    /// The stable code, as a string.
    public var code: String { errorCode.rawValue }
}

/// The private key of an inspection-system certificate: in a file or in an HSM. Signs the
/// Terminal Authentication challenge in the format the chip expects (plain `r || s` for ECDSA).
public protocol TerminalKey: Sendable {
    /// Where the key is (`file`, `pkcs11`), for reports; never the key or a PIN.
    var source: String { get }
    /// Signs `message` (the TA input, hashed by the scheme's digest) under `scheme`.
    func sign(_ message: [UInt8], scheme: SignatureScheme) async throws -> [UInt8]
}

/// A terminal key read from a PKCS #8 file (DER or PEM).
public struct FileTerminalKey: TerminalKey {
    let key: PrivateKey
    public var source: String { "file" }

    public init(key: PrivateKey) {
        self.key = key
    }

    public func sign(_ message: [UInt8], scheme: SignatureScheme) async throws -> [UInt8] {
        try key.signature(message: message, scheme: scheme)
    }
}

/// A terminal key in a PKCS #11 token (an HSM; SoftHSM2 in tests).
public struct PKCS11TerminalKey: TerminalKey {
    public let key: PKCS11Key
    public var source: String { "pkcs11" }

    public init(uri: String) throws {
        key = try PKCS11Key(uri: uri)
    }

    public func sign(_ message: [UInt8], scheme: SignatureScheme) async throws -> [UInt8] {
        try await key.sign(message: message, scheme: scheme)
    }
}

/// A certificate chain for one chip: the link/DV/IS certificates to present, in order, starting at
/// one of the chip's trust points, and the key of the last one.
public struct TerminalChain: Sendable {
    /// The chip's trust point (CAR) the chain starts from.
    public var trustPoint: String
    /// Certificates to present, issuer first (CVCA link certificates, DV, IS).
    public var certificates: [CVCertificate]
    /// The terminal key of the IS certificate.
    public var key: any TerminalKey
    /// The data groups (3, 4) all certificates of the chain grant.
    public var grantedDataGroups: [Int]

    public var terminal: CVCertificate { certificates[certificates.count - 1] }
}

/// Terminal Authentication, BSI TR-03110-1 §4.4 (version 1, as EAC1 eMRTDs run it after Chip
/// Authentication) with the commands of TR-03110-3 §B.3 / §B.11.
public enum TerminalAuthentication {
    /// What a successful run established.
    public struct Outcome: Sendable, Equatable {
        public var chain: [String]
        public var algorithm: String
    }

    /// The trust points (CARs) EF.CVCA names: one or two `42` objects, then `00` padding (TR-03110-3 §A.6.2.1).
    public static func trustPoints(efCVCA: [UInt8]) throws -> [String] {
        var rest = ArraySlice(efCVCA)
        var names: [String] = []
        while let first = rest.first, first != 0x00 {
            let tlv = try TLV.parseFirst(rest)
            guard tlv.tag == 0x42, (1...16).contains(tlv.value.count) else {
                throw ProtocolError.terminalAuthentication(.efCVCAInvalid, detail: "unexpected object in EF.CVCA")
            }
            names.append(String(decoding: tlv.value, as: UTF8.self))
            rest = rest.dropFirst(tlv.encodedLength)
        }
        guard !names.isEmpty, names.count <= 2, rest.allSatisfy({ $0 == 0 }) else {
            throw ProtocolError.terminalAuthentication(.efCVCAInvalid, detail: "EF.CVCA names \(names.count) trust points")
        }
        return names
    }

    /// EF.CVCA with these trust points, zero-padded to 36 bytes as chips store it.
    public static func efCVCA(trustPoints: [String]) -> [UInt8] {
        let objects = trustPoints.flatMap { TLV.encode(tag: 0x42, value: Array($0.utf8)) }
        return objects + [UInt8](repeating: 0, count: max(0, 36 - objects.count))
    }

    /// `Comp()` of BSI TR-03110-3 §A.2.2.3: the x-coordinate of an EC point, the SHA-1 hash of a DH
    /// value (the unsigned integer without leading zeros, as exchanged).
    public static func compressed(_ publicKey: [UInt8], keyAgreement: KeyAgreementAlgorithm) -> [UInt8] {
        switch keyAgreement {
        case .ecdh:
            guard publicKey.first == 0x04, publicKey.count % 2 == 1 else { return publicKey }
            return Array(publicKey[1...(publicKey.count / 2)])
        case .dh:
            return DigestAlgorithm.sha1.hash(MinimalBytes.unsigned(publicKey))
        }
    }

    /// `ID_PICC` after BAC (TR-03110-1 §4.4, §A.1 note): the document number as in the MRZ (at
    /// least nine characters, `<`-filled) followed by its check digit.
    public static func chipIdentifier(mrz key: MRZKey) -> [UInt8] {
        var number = key.documentNumber
        while number.count < 9 { number += "<" }
        let digit = MRZ.checkDigit(number).map(String.init) ?? "<"
        return Array((number + digit).utf8)
    }

    /// The TA version 1 signature input: `ID_PICC || r_PICC || Comp(PK_PCD)`, with `PK_PCD` the
    /// terminal's ephemeral Chip Authentication key (TR-03110-1 §4.4.1, step 3).
    public static func signatureInput(
        chipIdentifier: [UInt8], challenge: [UInt8], terminalEphemeralKey: [UInt8], keyAgreement: KeyAgreementAlgorithm
    ) -> [UInt8] {
        chipIdentifier + challenge + compressed(terminalEphemeralKey, keyAgreement: keyAgreement)
    }

    /// Runs TA on `channel` (secure messaging under the CA keys): presents the chain certificate by
    /// certificate, then signs the chip's challenge.
    /// - Throws: `ProtocolError.terminalAuthentication` with the failure; transport and SM errors as is.
    public static func perform(
        channel: ChipChannel, chain: TerminalChain, chipIdentifier: [UInt8], terminalEphemeralKey: [UInt8],
        keyAgreement: KeyAgreementAlgorithm
    ) async throws -> Outcome {
        // §B.11.1 / §B.11.4: MSE:Set DST names the verifying key, PSO:Verify Certificate presents one.
        var issuer = chain.trustPoint
        for certificate in chain.certificates {
            let dst = try await channel.send(CommandAPDU(
                ins: 0x22, p1: 0x81, p2: 0xB6, data: TLV.encode(tag: 0x83, value: Array(issuer.utf8))))
            guard dst.statusWord.isSuccess else {
                throw ProtocolError.terminalAuthentication(
                    .certificateRejected, detail: "MSE:Set DST \(issuer) answered \(dst.statusWord)")
            }
            let verify = try await channel.send(CommandAPDU(
                ins: 0x2A, p1: 0x00, p2: 0xBE, data: certificate.body + certificate.signatureObject))
            guard verify.statusWord.isSuccess else {
                throw ProtocolError.terminalAuthentication(
                    .certificateRejected, detail: "PSO:Verify Certificate \(certificate.holderReference) answered \(verify.statusWord)")
            }
            issuer = certificate.holderReference
        }
        // §B.11.2: MSE:Set AT names the terminal's key by its CHR.
        let terminal = chain.terminal
        let at = try await channel.send(CommandAPDU(
            ins: 0x22, p1: 0x81, p2: 0xA4, data: TLV.encode(tag: 0x83, value: Array(terminal.holderReference.utf8))))
        guard at.statusWord.isSuccess else {
            throw ProtocolError.terminalAuthentication(.signatureRejected, detail: "MSE:Set AT answered \(at.statusWord)")
        }
        let challenge = try await channel.send(CommandAPDU(ins: 0x84, p1: 0, p2: 0, ne: 8))
        guard challenge.statusWord.isSuccess, challenge.data.count == 8 else {
            throw ProtocolError.terminalAuthentication(
                .signatureRejected, detail: "GET CHALLENGE answered \(challenge.data.count) bytes, \(challenge.statusWord)")
        }
        guard let scheme = terminal.publicKey.signatureScheme else {
            throw ProtocolError.terminalAuthentication(.roleInvalid, detail: "unsupported algorithm \(terminal.publicKey.algorithmOID)")
        }
        let input = signatureInput(
            chipIdentifier: chipIdentifier, challenge: challenge.data, terminalEphemeralKey: terminalEphemeralKey,
            keyAgreement: keyAgreement)
        let signature: [UInt8]
        do {
            signature = try await chain.key.sign(input, scheme: scheme)
        } catch {
            throw ProtocolError.terminalAuthentication(.keyUnavailable, detail: "\(chain.key.source) key: \(error)")
        }
        let external = try await channel.send(CommandAPDU(ins: 0x82, p1: 0, p2: 0, data: signature))
        guard external.statusWord.isSuccess else {
            throw ProtocolError.terminalAuthentication(
                .signatureRejected, detail: "EXTERNAL AUTHENTICATE answered \(external.statusWord)")
        }
        return Outcome(chain: [chain.trustPoint] + chain.certificates.map(\.holderReference), algorithm: scheme.description)
    }
}
