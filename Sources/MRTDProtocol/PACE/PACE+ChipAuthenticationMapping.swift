public import MRTDCore
import MRTDCrypto

extension PACE {
    /// Checks PACE-CAM (Doc 9303-11 §4.4.3.5.2, RELIABILITY PACE-08): the chip proved knowledge of
    /// the private key of a ChipAuthenticationPublicKeyInfo in EF.CardSecurity iff
    /// `CA_IC · PK_IC = PK_map,IC`.
    ///
    /// Returns `passed-unverified-key` (`DocumentReader` gates it on passive authentication
    /// of EF.CardSecurity) or `failed` with a reason: `noChipAuthenticationData` (tag 8A missing or
    /// undecryptable), `cardSecurityMissing`, `cardSecurityMalformed`, `noChipAuthenticationKey`,
    /// `keyMismatch`, or, given `cardAccess`, `cardSecurityInconsistent` when a PACE parameter of
    /// EF.CardAccess is missing from EF.CardSecurity (TR-03110-3 §A.1.2: EF.CardSecurity contains
    /// the SecurityInfos of EF.CardAccess; RELIABILITY CS-01).
    public static func verifyChipAuthenticationMapping(
        _ outcome: Outcome, cardSecurity: [UInt8]?, cardAccess: SecurityInfos? = nil
    ) -> ReadResult.Check {
        guard let caIC = outcome.chipAuthenticationData, let mapPK = outcome.chipMappingPublicKey else {
            return ReadResult.Check(result: .failed, reason: "noChipAuthenticationData", keyFile: LDSFile.cardSecurity.name)
        }
        guard let cardSecurity else { return ReadResult.Check(result: .failed, reason: "cardSecurityMissing", keyFile: LDSFile.cardSecurity.name) }
        let infos: SecurityInfos
        do {
            infos = try CardSecurity(rawBytes: cardSecurity).securityInfos
        } catch {
            return ReadResult.Check(result: .failed, reason: ErrorCode.cardSecurityMalformed.rawValue, keyFile: LDSFile.cardSecurity.name)
        }
        if let cardAccess, !cardAccess.paceParametersMissing(from: infos).isEmpty {
            return ReadResult.Check(result: .failed, reason: "cardSecurityInconsistent", keyFile: LDSFile.cardSecurity.name)
        }
        let keys = infos.chipAuthenticationPublicKeyInfos.filter { $0.keyAgreement == .ecdh }
        guard !keys.isEmpty, let group = outcome.group as? ECGroup else {
            return ReadResult.Check(result: .failed, reason: "noChipAuthenticationKey", keyFile: LDSFile.cardSecurity.name)
        }
        // Several keys on one curve (a CAM key and a generic Chip Authentication key): TR-03110-3
        // §A.1.1.2 has keyId tell them apart, and the PACEInfo's parameterId name the CAM key's keyId
        // (gmrtd#447). That key is tried first; any other key is accepted only by the equation itself,
        // so a key found either way is one the chip proved it holds, and the check names its keyId.
        let parameterID = outcome.parameters.parameterID
        let ordered = keys.filter { $0.keyID != nil && $0.keyID == parameterID } + keys.filter { $0.keyID == nil || $0.keyID != parameterID }
        for key in ordered {
            guard let pkIC = try? key.publicKey,
                  let product = try? group.multiply(point: pkIC, scalar: caIC) else { continue }
            if constantTimeEqual(product, mapPK) {
                let how = key.keyID == nil ? "CAM key without keyId, found by the CAM equation"
                    : key.keyID == parameterID ? "CAM key keyId \(key.keyID!), the PACEInfo's parameterId"
                    : "CAM key keyId \(key.keyID!), found by the CAM equation (the parameterId names no such key)"
                return ReadResult.Check(result: .passedUnverifiedKey, keyFile: LDSFile.cardSecurity.name, detail: how)
            }
        }
        return ReadResult.Check(result: .failed, reason: "keyMismatch", keyFile: LDSFile.cardSecurity.name)
    }
}
