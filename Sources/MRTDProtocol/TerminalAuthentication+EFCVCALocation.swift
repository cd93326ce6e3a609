public import MRTDCore

extension TerminalAuthentication {
    /// EF.CVCA's file identifier and short file identifier in the LDS1 application (Doc 9303-10 §4.7,
    /// BSI TR-03110-3 §A.6.2.1): `011C`, SFI `1C`.
    public static let efCVCAFileID: [UInt8] = [0x01, 0x1C]
    public static let efCVCAShortFileID: [UInt8] = [0x1C]

    /// The `efCVCA` of a TerminalAuthenticationInfo (TR-03110-3 §A.1.1.2: `SEQUENCE { id-TA, version
    /// INTEGER, efCVCA FileID OPTIONAL }`, `FileID ::= SEQUENCE { fid OCTET STRING (SIZE 2), sfid
    /// OCTET STRING (SIZE 1) OPTIONAL }`); `nil` when the info names no file or does not parse.
    public static func efCVCALocation(terminalAuthenticationInfo rawBytes: [UInt8]) -> (fid: [UInt8], sfid: [UInt8]?)? {
        guard let info = try? TLV.parse(rawBytes, expecting: 0x30).children(), info.count >= 3, info[2].tag == 0x30,
              let fileID = try? info[2].children(), let fid = fileID.first, fid.tag == 0x04
        else { return nil }
        let sfid = fileID.count > 1 && fileID[1].tag == 0x04 ? fileID[1].bytes : nil
        return (fid.bytes, sfid)
    }

    /// Why DG14's TerminalAuthenticationInfo contradicts the LDS (ISO7816_E_22, E_23 of BSI TR-03105-5.1):
    /// it places EF.CVCA at another file or short file identifier than `011C` / `1C`. A chip saying so
    /// is inconsistent: TA does not go on with a guess. `nil` when there is no such info or it agrees.
    public static func efCVCALocationMismatch(in securityInfos: SecurityInfos?) -> String? {
        for case .unknown(let info) in securityInfos?.infos ?? [] where info.protocolOID == SecurityProtocolOID.ta {
            guard let location = efCVCALocation(terminalAuthenticationInfo: info.rawBytes) else { continue }
            if location.fid != efCVCAFileID {
                return "DG14's TerminalAuthenticationInfo places EF.CVCA at FID \(location.fid.hex), not 011C"
            }
            if let sfid = location.sfid, sfid != efCVCAShortFileID {
                return "DG14's TerminalAuthenticationInfo places EF.CVCA at SFI \(sfid.hex), not 1C"
            }
        }
        return nil
    }
}
