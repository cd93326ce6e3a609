internal import CLibCrypto

/// The standardized domain parameters of Doc 9303-11 §9.5.1 (``ECGroup/StandardCurve``,
/// ``DHGroup/StandardGroup``) as OpenSSL names them, for naming the curve of an `EVP_PKEY`.
enum StandardizedDomainParameterTable {
    /// The display name (`NIST-P-256`, `brainpoolP256r1`, `RFC5114-2048-224`) of an OpenSSL curve
    /// or group short name; the OpenSSL name itself for others.
    static func displayName(openSSLName: String) -> String {
        if let group = DHGroup.StandardGroup.allCases.first(where: { Self.openSSLName($0) == openSSLName }) {
            return group.name
        }
        let nid = OBJ_sn2nid(openSSLName)
        return ECGroup.StandardCurve.allCases.first { $0.nid == nid }?.name ?? openSSLName
    }

    private static func openSSLName(_ group: DHGroup.StandardGroup) -> String {
        switch group {
        case .rfc5114_1024_160: "dh_1024_160"
        case .rfc5114_2048_224: "dh_2048_224"
        case .rfc5114_2048_256: "dh_2048_256"
        }
    }
}
