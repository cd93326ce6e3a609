public import MRTDCore
public import MRTDCrypto
import SwiftASN1

/// One PACE configuration the chip offers: the PACEInfo, its protocol and resolved domain parameters.
public struct PACEParameters: Sendable, Equatable {
    public var info: PACEInfo
    public var paceProtocol: PACEProtocol
    /// Standardized (`.standardized(id)`) or explicit parameters from a PACEDomainParameterInfo.
    public var domainParameters: DomainParameters
    /// The parameter ID sent in MSE:Set AT tag `84`, when the chip gave one.
    public var parameterID: Int?

    public init(info: PACEInfo, paceProtocol: PACEProtocol, domainParameters: DomainParameters, parameterID: Int?) {
        self.info = info
        self.paceProtocol = paceProtocol
        self.domainParameters = domainParameters
        self.parameterID = parameterID
    }

    /// The session cipher.
    public var cipher: SMCipher { SMCipher(rawValue: paceProtocol.cipher.rawValue) ?? .aes128 }

    /// Every configuration in `securityInfos` this reader can run, strongest first.
    ///
    /// Order: Chip Authentication Mapping first (it also authenticates the chip), then the stronger
    /// cipher, the larger group, Generic before Integrated Mapping. Configurations whose domain
    /// parameters cannot be resolved (an unknown or reserved parameter ID, a missing
    /// PACEDomainParameterInfo; RELIABILITY PACE-01) are left out.
    public static func supported(in securityInfos: SecurityInfos) -> [PACEParameters] {
        var result: [PACEParameters] = []
        for info in securityInfos.paceInfos {
            guard let proto = info.paceProtocol, let resolved = resolve(info, proto, securityInfos) else { continue }
            result.append(resolved)
        }
        return result.sorted { strength($1).lexicographicallyPrecedes(strength($0)) }
    }

    /// The strongest supported configuration.
    ///
    /// - Throws: `ProtocolError.paceNotSupported` when there is none.
    public static func strongest(in securityInfos: SecurityInfos) throws -> PACEParameters {
        guard let best = supported(in: securityInfos).first else {
            let listed = securityInfos.paceInfos.map { "\($0.paceProtocol?.name ?? $0.protocolOID.description) (parameter ID \($0.parameterID.map(String.init) ?? "none"))" }
            throw ProtocolError.paceNotSupported(listed.isEmpty
                ? "EF.CardAccess lists no PACEInfo"
                : "no supported protocol and domain parameters among \(listed.joined(separator: ", "))")
        }
        return best
    }

    /// TR-03110-3 §A.1.1.1: a parameterId names a PACEDomainParameterInfo of the same family when
    /// there is one, else a standardized set (0-31); without a parameterId the chip must list exactly
    /// one PACEDomainParameterInfo for the family.
    static func resolve(_ info: PACEInfo, _ proto: PACEProtocol, _ infos: SecurityInfos) -> PACEParameters? {
        let family = infos.paceDomainParameterInfos.filter {
            $0.family?.mapping == proto.mapping && $0.family?.keyAgreement == proto.keyAgreement
        }
        let explicit: PACEDomainParameterInfo?
        if let id = info.parameterID {
            explicit = family.first { $0.parameterID == id }
        } else {
            explicit = family.count == 1 ? family.first : nil
        }
        if let explicit {
            guard let parameters = try? explicit.domainParameter.domainParameters,
                  matches(parameters, proto.keyAgreement) else { return nil }
            return PACEParameters(info: info, paceProtocol: proto, domainParameters: parameters,
                                  parameterID: info.parameterID ?? explicit.parameterID)
        }
        guard let id = info.parameterID, let name = KeyAgreementGroups.name(ofStandardized: id) else { return nil }
        let isDH = (0...2).contains(id)
        guard isDH == (proto.keyAgreement == .dh) else { return nil }
        // Appendix B's point encoding needs p ≡ 3 (mod 4); NIST P-224 does not qualify.
        if proto.mapping == .im && name == ECGroup.StandardCurve.p224.name { return nil }
        return PACEParameters(info: info, paceProtocol: proto, domainParameters: .standardized(id), parameterID: id)
    }

    private static func matches(_ parameters: DomainParameters, _ agreement: KeyAgreementAlgorithm) -> Bool {
        switch parameters {
        case .ec, .namedCurve: return agreement == .ecdh
        case .dh: return agreement == .dh
        case .standardized(let id): return ((0...2).contains(id)) == (agreement == .dh)
        }
    }

    /// A sortable strength: mapping, cipher, approximate group security, mapping kind.
    private static func strength(_ p: PACEParameters) -> [Int] {
        let bits: Int
        switch p.domainParameters {
        case .standardized(let id):
            switch id {
            case 0: bits = 80
            case 1: bits = 112
            case 2: bits = 112
            default: bits = (ECGroup.StandardCurve(rawValue: id).map { curveBits($0) } ?? 0) / 2
            }
        case .ec(let ec): bits = ec.p.count * 4
        case .namedCurve: bits = 128
        case .dh(let dh): bits = dh.p.count >= 256 ? 112 : 80
        }
        let mapping = p.paceProtocol.mapping == .cam ? 2 : (p.paceProtocol.mapping == .gm ? 1 : 0)
        return [p.paceProtocol.mapping == .cam ? 1 : 0, p.paceProtocol.cipher.oidArc, bits, mapping]
    }

    private static func curveBits(_ c: ECGroup.StandardCurve) -> Int {
        switch c {
        case .p192, .brainpoolP192r1: 192
        case .p224, .brainpoolP224r1: 224
        case .p256, .brainpoolP256r1: 256
        case .brainpoolP320r1: 320
        case .p384, .brainpoolP384r1: 384
        case .brainpoolP512r1: 512
        case .p521: 521
        }
    }
}
