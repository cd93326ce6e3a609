public import MRTDCore
public import MRTDCrypto

/// Everything that can end a chip session. Each case has a stable `code` (used by the result JSON
/// and, later, the daemon API) and a readable description free of personal data.
public enum ProtocolError: Error, Sendable, Equatable, CustomStringConvertible, CodedError {
    /// The reader or the link failed (card removed, reader gone, timeout).
    case transport(TransportError)
    /// SELECT of the eMRTD application failed: not a passport or ID card chip.
    case notAnEMRTD(StatusWord)
    /// The chip refused the access key: wrong MRZ data (BAC) or wrong password (PACE).
    case accessDenied(protocol: String, StatusWord?)
    /// The chip does not do BAC (for example a PACE-only chip answering 6A88 or 6D00).
    case bacNotSupported(StatusWord)
    /// The chip's side of an authentication did not check out (its MAC or cryptogram).
    case authenticationFailed(String)
    /// Chip Authentication failed (RELIABILITY CA-01, CA-02); `detail` is free of key material.
    case chipAuthentication(ChipAuthenticationFailure, detail: String)
    /// EAC Terminal Authentication failed (reported in `checks.terminalAuthentication`, never ending the read).
    case terminalAuthentication(TerminalAuthenticationFailure, detail: String)
    /// A secure-messaging response whose MAC is wrong. Nothing from it is used.
    case secureMessagingMACInvalid
    /// A secure-messaging response lacking a mandatory data object (`DO'8E'`, `DO'99'`).
    case secureMessagingObjectMissing(String)
    /// A secure-messaging response that cannot be decoded.
    case secureMessagingMalformed(String)
    /// A plain status word where a protected response was due: the chip dropped secure messaging.
    case unprotectedResponse(StatusWord)
    /// A data group or EF the chip does not have.
    case fileNotFound(LDSFile)
    /// The chip refuses to let this file be read (6982: EAC-protected data groups).
    case fileAccessDenied(LDSFile, StatusWord)
    /// READ BINARY or SELECT failed with a status word the reader cannot recover from.
    case commandFailed(String, StatusWord)
    /// The file's header declares more bytes than the configured limit.
    case fileTooLarge(LDSFile, declared: Int, limit: Int)
    /// The chip reported the end of the file before the length its header declares.
    case fileTruncated(LDSFile, expected: Int, received: Int)
    /// The file's header is not valid BER-TLV.
    case malformedFile(LDSFile, TLVError)
    /// The chip answered without data and without reporting the end of the file.
    case noProgress(LDSFile)
    /// Length adjustments did not converge (6700 / 6Cxx at every Le tried).
    case lengthNegotiationFailed(LDSFile)
    /// A `61xx` answer went on past the bounds of one response (ISO/IEC 7816-4 §5.1.3: GET
    /// RESPONSE pieces of more than 65538 bytes in all, or more pieces than such a response needs).
    case responseTooLong(pieces: Int, bytes: Int)
    /// A cryptographic primitive failed.
    case crypto(CryptoError)
    /// A command could not be encoded.
    case apdu(APDUError)
    /// The read was cancelled.
    case cancelled

    // PACE (Doc 9303-11 §4.4; RELIABILITY PACE-01..08).

    /// The chip refused the PACE password: wrong MRZ data, CAN or PIN (GA step 4 answered 63xx /
    /// 6982). Code `accessDenied`, like BAC's wrong key; `password` names the type, never the value.
    case wrongPassword(protocol: String, password: String, StatusWord?)
    /// EF.CardAccess offers no PACE protocol and domain parameters this reader supports, or its
    /// SecurityInfos are malformed (PACE-01).
    case paceNotSupported(String)
    /// MSE:Set AT answered an error status word (PACE-02; 6A87 from chips that need tag 84).
    case paceSetupRefused(StatusWord)
    /// A GENERAL AUTHENTICATE step answered an error status word other than a password refusal.
    case paceStepFailed(step: String, StatusWord)
    /// A GENERAL AUTHENTICATE answer without its dynamic authentication data or with wrong tags
    /// (PACE-03).
    case paceMalformedResponse(step: String, String)
    /// The chip's mapping or ephemeral public key is invalid: not on the curve, the identity, out of
    /// range (PACE-04).
    case paceInvalidPublicKey(step: String, String)
    /// The chip sent back the terminal's own public key (PACE-05).
    case pacePublicKeyReflected(step: String)
    /// The chip's authentication token T_IC does not verify (PACE-06). No session keys are kept.
    case paceTokenInvalid

    /// A stable, scriptable code.
    public var errorCode: ErrorCode {
        switch self {
        case .transport(let t): return t.errorCode
        case .notAnEMRTD: return .notAnEMRTD
        case .accessDenied: return .accessDenied
        case .bacNotSupported: return .bacNotSupported
        case .authenticationFailed: return .authenticationFailed
        case .chipAuthentication(let failure, _): return failure.errorCode
        case .terminalAuthentication(let failure, _): return failure.errorCode
        case .secureMessagingMACInvalid: return .secureMessagingMACInvalid
        case .secureMessagingObjectMissing: return .secureMessagingObjectMissing
        case .secureMessagingMalformed: return .secureMessagingMalformed
        case .unprotectedResponse: return .secureMessagingLost
        case .fileNotFound: return .fileNotFound
        case .fileAccessDenied: return .fileAccessDenied
        case .commandFailed: return .commandFailed
        case .fileTooLarge: return .fileTooLarge
        case .fileTruncated: return .fileTruncated
        case .malformedFile: return .malformedFile
        case .noProgress: return .noProgress
        case .lengthNegotiationFailed: return .lengthNegotiationFailed
        case .responseTooLong: return .responseTooLong
        case .crypto: return .cryptoFailure
        case .apdu: return .apduEncoding
        case .cancelled: return .cancelled
        case .wrongPassword: return .accessDenied
        case .paceNotSupported: return .paceNotSupported
        case .paceSetupRefused: return .paceSetupRefused
        case .paceStepFailed: return .paceStepFailed
        case .paceMalformedResponse: return .paceMalformedResponse
        case .paceInvalidPublicKey: return .paceInvalidPublicKey
        case .pacePublicKeyReflected: return .pacePublicKeyReflected
        case .paceTokenInvalid: return .paceTokenInvalid
        }
    }

    /// `errorCode` as a string.
    public var code: String { errorCode.rawValue }

    /// Whether the failure is the password's fault (so neither retried nor replaced by BAC).
    public var isWrongPassword: Bool {
        switch self {
        case .wrongPassword, .accessDenied: return true
        default: return false
        }
    }

    public var description: String {
        switch self {
        case .transport(let t): return t.description
        case .notAnEMRTD(let sw): return "no eMRTD application on this chip (SELECT answered \(sw))"
        case .accessDenied(let proto, let sw):
            let how = sw.map { " (\($0))" } ?? ""
            return "\(proto) failed: access denied\(how): the access key (MRZ data or CAN) does not match this document"
        case .bacNotSupported(let sw): return "the chip does not support BAC (\(sw))"
        case .authenticationFailed(let why): return "chip authentication response rejected: \(why)"
        case .chipAuthentication(let failure, let detail): return "Chip Authentication failed (\(failure.code)): \(detail)"
        case .terminalAuthentication(let failure, let detail): return "Terminal Authentication failed (\(failure.code)): \(detail)"
        case .secureMessagingMACInvalid: return "secure messaging: response MAC is invalid; response discarded"
        case .secureMessagingObjectMissing(let what): return "secure messaging: response lacks \(what)"
        case .secureMessagingMalformed(let why): return "secure messaging: malformed response: \(why)"
        case .unprotectedResponse(let sw):
            return "secure messaging lost: the chip answered \(sw) without protection"
        case .fileNotFound(let f): return "\(f.name) not found on the chip"
        case .fileAccessDenied(let f, let sw): return "\(f.name) may not be read (\(sw))"
        case .commandFailed(let what, let sw): return "\(what) failed: \(sw)"
        case .fileTooLarge(let f, let declared, let limit):
            return "\(f.name) declares \(declared) bytes, over the limit of \(limit)"
        case .fileTruncated(let f, let expected, let received):
            return "\(f.name) ended after \(received) of the \(expected) bytes its header declares"
        case .malformedFile(let f, let e): return "\(f.name) has a malformed header: \(e)"
        case .noProgress(let f): return "the chip returned no data for \(f.name)"
        case .lengthNegotiationFailed(let f): return "no READ BINARY length accepted for \(f.name)"
        case .responseTooLong(let pieces, let bytes):
            return "the chip's answer went on past \(bytes) bytes in \(pieces) GET RESPONSE pieces: abandoned"
        case .crypto(let e): return "cryptographic failure: \(e)"
        case .apdu(let e): return "APDU encoding failed: \(e)"
        case .cancelled: return "read cancelled"
        case .wrongPassword(let proto, let password, let sw):
            let how = sw.map { " (\($0))" } ?? ""
            if sw == .referencedDataNotFound {
                return "\(proto) failed: access denied\(how): this document does not take the \(password) as password (a CAN-only card?)"
            }
            return "\(proto) failed: access denied\(how): the \(password) does not match this document"
        case .paceNotSupported(let why): return "PACE not possible: \(why)"
        case .paceSetupRefused(let sw): return "PACE: MSE:Set AT refused (\(sw))"
        case .paceStepFailed(let step, let sw): return "PACE: \(step) failed (\(sw))"
        case .paceMalformedResponse(let step, let why): return "PACE: malformed answer to \(step): \(why)"
        case .paceInvalidPublicKey(let step, let why): return "PACE: invalid chip public key in \(step): \(why)"
        case .pacePublicKeyReflected(let step): return "PACE: the chip returned the terminal's own public key in \(step)"
        case .paceTokenInvalid: return "PACE: the chip's authentication token does not verify"
        }
    }
}
