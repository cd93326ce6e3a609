internal import CLibNFC

/// What a libnfc return code means for a connection or a device (libnfc 1.8 `NFC_E*` codes, as the
/// pn53x chip layer derives them from PN53x status bytes: UM0701-02 §7.1).
enum LibNFCFailure: Equatable, Sendable {
    /// The target left: `NFC_ETGRELEASED` (PN53x 0x29 "target released", 0x2B "card discarded").
    case targetReleased
    /// No valid answer over RF (`NFC_ERFTRANS`: PN53x timeout 0x01, CRC, parity, framing, protocol
    /// errors): the card left, or answered too late. Decided by a presence check.
    case rfFailure
    /// The reader did not answer the host in time (`NFC_ETIMEOUT`).
    case hostTimeout
    /// The reader is gone or its line broken (`NFC_EIO`, `NFC_ENOTSUCHDEV`).
    case deviceLost
    /// `nfc_abort_command` ended the call (`NFC_EOPABORTED`).
    case aborted
    /// Anything else (`NFC_ECHIP`, `NFC_EOVFLOW`, `NFC_EINVARG`, `NFC_ESOFT`, ...).
    case other(Int32)

    init(code: Int32) {
        switch code {
        case NFC_ETGRELEASED: self = .targetReleased
        case NFC_ERFTRANS: self = .rfFailure
        case NFC_ETIMEOUT: self = .hostTimeout
        case NFC_EIO, NFC_ENOTSUCHDEV: self = .deviceLost
        case NFC_EOPABORTED: self = .aborted
        default: self = .other(code)
        }
    }

    /// libnfc's name for a code (never card data).
    static func describe(_ code: Int32) -> String {
        switch code {
        case NFC_EIO: return "input/output error (NFC_EIO)"
        case NFC_EINVARG: return "invalid argument (NFC_EINVARG)"
        case NFC_EDEVNOTSUPP: return "operation not supported by device (NFC_EDEVNOTSUPP)"
        case NFC_ENOTSUCHDEV: return "no such device (NFC_ENOTSUCHDEV)"
        case NFC_EOVFLOW: return "buffer overflow (NFC_EOVFLOW)"
        case NFC_ETIMEOUT: return "timeout (NFC_ETIMEOUT)"
        case NFC_EOPABORTED: return "operation aborted (NFC_EOPABORTED)"
        case NFC_ENOTIMPL: return "not implemented (NFC_ENOTIMPL)"
        case NFC_ETGRELEASED: return "target released (NFC_ETGRELEASED)"
        case NFC_ERFTRANS: return "RF transmission error (NFC_ERFTRANS)"
        case NFC_EMFCAUTHFAIL: return "MIFARE authentication failed (NFC_EMFCAUTHFAIL)"
        case NFC_ESOFT: return "software error (NFC_ESOFT)"
        case NFC_ECHIP: return "device's internal chip error (NFC_ECHIP)"
        default: return "libnfc error \(code)"
        }
    }
}
