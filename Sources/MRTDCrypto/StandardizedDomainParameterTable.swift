/// The standardized domain parameters of BSI TR-03110-3 §A.2.1.1 / Doc 9303-11 §9.5.1 (Table 12),
/// named as OpenSSL names them. Shared by every key agreement that names its group by ID.
enum StandardizedDomainParameterTable {
    enum Entry {
        case dh(openSSLName: String, displayName: String)
        case ec(openSSLName: String, displayName: String)
    }

    static func entry(_ id: Int) -> Entry? {
        switch id {
        case 0: .dh(openSSLName: "dh_1024_160", displayName: "RFC5114-1024-160")
        case 1: .dh(openSSLName: "dh_2048_224", displayName: "RFC5114-2048-224")
        case 2: .dh(openSSLName: "dh_2048_256", displayName: "RFC5114-2048-256")
        case 8: .ec(openSSLName: "prime192v1", displayName: "P-192")
        case 9: .ec(openSSLName: "brainpoolP192r1", displayName: "brainpoolP192r1")
        case 10: .ec(openSSLName: "secp224r1", displayName: "P-224")
        case 11: .ec(openSSLName: "brainpoolP224r1", displayName: "brainpoolP224r1")
        case 12: .ec(openSSLName: "prime256v1", displayName: "P-256")
        case 13: .ec(openSSLName: "brainpoolP256r1", displayName: "brainpoolP256r1")
        case 14: .ec(openSSLName: "brainpoolP320r1", displayName: "brainpoolP320r1")
        case 15: .ec(openSSLName: "secp384r1", displayName: "P-384")
        case 16: .ec(openSSLName: "brainpoolP384r1", displayName: "brainpoolP384r1")
        case 17: .ec(openSSLName: "brainpoolP512r1", displayName: "brainpoolP512r1")
        case 18: .ec(openSSLName: "secp521r1", displayName: "P-521")
        default: nil
        }
    }

    /// The display name (as in ``entry(_:)``) of an OpenSSL curve or group short name.
    static func displayName(openSSLName: String) -> String {
        for id in [0, 1, 2] + Array(8...18) {
            switch entry(id) {
            case .dh(let name, let display) where name == openSSLName: return display
            case .ec(let name, let display) where name == openSSLName: return display
            default: continue
            }
        }
        return openSSLName
    }
}
