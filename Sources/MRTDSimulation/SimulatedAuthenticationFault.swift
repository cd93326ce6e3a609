/// A Chip or Active Authentication fault of a simulated chip, by the name `--sim-auth-fault` takes
/// (`mrtdctl read --simulate` and `mrtdd --simulate`). TEST ONLY.
public enum SimulatedAuthenticationFault: String, Sendable, CaseIterable {
    /// The chip keeps its old session keys after CA (RELIABILITY CA-02).
    case keepOldKeys = "keep-old-keys"
    /// The chip does CA with a key other than DG14's (a clone).
    case wrongCAKey = "wrong-ca-key"
    /// DG14's ChipAuthenticationInfo names a key ID no key has (CA-01).
    case keyIDMismatch = "key-id-mismatch"
    /// DG14's public key is off the curve / outside the subgroup (CA-01).
    case corruptedCAKey = "corrupted-ca-key"
    /// The AA signature has a bit flipped (a clone without the AA key).
    case badAASignature = "bad-aa-signature"

    /// The names, for help texts.
    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// What `faults` change: DG14 as written, and the chip's behaviour.
    public static func split(_ faults: [SimulatedAuthenticationFault]) -> (dg14: DG14Faults, chip: VirtualChipAuthentication.Faults) {
        var dg14: DG14Faults = []
        var chip: VirtualChipAuthentication.Faults = []
        for fault in faults {
            switch fault {
            case .keepOldKeys: chip.insert(.keepsOldKeysAfterChipAuthentication)
            case .wrongCAKey: chip.insert(.chipAuthenticationWithWrongPrivateKey)
            case .keyIDMismatch: dg14.insert(.keyIDMismatch)
            case .corruptedCAKey: dg14.insert(.corruptedPublicKey)
            case .badAASignature: chip.insert(.activeAuthenticationBadSignature)
            }
        }
        return (dg14, chip)
    }
}
