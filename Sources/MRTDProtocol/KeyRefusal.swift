public import MRTDCore

/// The answers by which a chip says "this access key is wrong" to an authentication command, apart
/// from the protocol's own refusals and from a lost link (docs/field-quirks.md, "Wrong keys").
///
/// A wrong key is `accessDenied` whatever refusal the chip uses, so a kiosk tells the holder to
/// check the document's data; anything else at these steps stays the protocol's error
/// (`commandFailed`, `paceStepFailed`, `paceSetupRefused`), and a card that leaves is `cardRemoved`.
public enum KeyRefusal {
    /// An access-control command the chip may refuse because of the key.
    public enum Step: Sendable, Equatable {
        /// BAC's EXTERNAL AUTHENTICATE, whose cryptogram and MAC (M_IFD) are keyed by the MRZ.
        case bacMutualAuthentication
        /// PACE's MSE:Set AT, which names the password (Doc 9303-11 §4.4.4.1).
        case paceSetAT
        /// GENERAL AUTHENTICATE steps 1-3 (nonce, mapping, key agreement): nothing keyed by the
        /// password is checked yet, so only a retry counter speaks of the password.
        case paceKeyExchange
        /// GENERAL AUTHENTICATE step 4, mutual authentication: the chip checks T_IFD, a MAC under
        /// keys the password decided.
        case paceMutualAuthentication
    }

    /// Whether `status`, the chip's answer at `step`, refuses the key.
    ///
    /// - `63xx` (ISO/IEC 7816-4 §5.6: `6300` authentication failed, `63Cx` the retry counter;
    ///   TR-03110-3 B.11.1: `63C1` suspended, `63C0` blocked), `6983` (authentication method
    ///   blocked) and `6984` (reference data not usable: deactivated) at every step;
    /// - `6982` (security status not satisfied) at both mutual authentications;
    /// - `6985` (conditions of use not satisfied) at both mutual authentications: a real passport
    ///   given a mistyped document number (selfxyz/self#770, "BAC failed in MUTUAL AUTH (SW = 0x6985)");
    /// - `6988` (SM data objects incorrect) at both mutual authentications: the cryptogram's MAC did
    ///   not verify, the way the vsmartcard project's emulated ePassport refuses a wrong MRZ
    ///   (`ePass.py`, `external_authenticate`: `ERR_SECMESSOBJECTSINCORRECT`);
    /// - `6A88` (referenced data not found) at MSE:Set AT: the chip has no such password (a CAN-only
    ///   card given an MRZ).
    public static func refusesKey(_ status: StatusWord, at step: Step) -> Bool {
        if status.sw1 == 0x63 || status == .authenticationMethodBlocked || status == .referenceDataNotUsable { return true }
        switch step {
        case .bacMutualAuthentication, .paceMutualAuthentication:
            return status == .securityStatusNotSatisfied || status == .conditionsNotSatisfied
                || status == .smDataObjectsIncorrect
        case .paceSetAT:
            return status == .referencedDataNotFound
        case .paceKeyExchange:
            return false
        }
    }
}
