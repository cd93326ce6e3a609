import MRTDCore
import MRTDCrypto
import MRTDTesting

/// The public-key work of one read on bare OpenSSL (``OpenSSLFloor``), in milliseconds: the PACE
/// mapping and key agreement, Chip Authentication against the DG14 key, Active Authentication
/// against the DG15 key. Each piece is measured once per run and shared by the variants using it.
final class AsymmetricFloor {
    let iterations: Int
    private var curves: [Int: OpenSSLFloor.Costs] = [:]
    private var dhGroups: [Int: OpenSSLFloor.DHCosts] = [:]
    private var chipAuthentication: [[UInt8]: Double] = [:]
    private var activeAuthentication: Double?

    init(iterations: Int) { self.iterations = iterations }

    /// Milliseconds of public-key work for `read`.
    func milliseconds(for read: RecordedRead) throws -> Double {
        var microseconds = 0.0
        var camDone = false
        if case .pace(let info) = read.variant.access {
            guard let id = info.parameterID, let proto = info.paceProtocol else { throw BenchError.check("PACEInfo without parameters") }
            if id <= 2 {
                guard let group = DHGroup.StandardGroup(rawValue: id), proto.mapping == .gm else {
                    throw BenchError.check("no DH floor for \(proto.name) #\(id)")
                }
                microseconds += try dhCosts(group).paceGenericMapping
            } else {
                guard let curve = ECGroup.StandardCurve(rawValue: id) else { throw BenchError.check("curve #\(id)") }
                let costs = try ecCosts(curve)
                switch proto.mapping {
                case .gm: microseconds += costs.paceGenericMapping
                case .im: microseconds += costs.paceIntegratedMapping
                case .cam:
                    microseconds += costs.paceChipAuthenticationMapping
                    camDone = true
                }
            }
        }
        if !camDone, let dg14 = read.files[.dg(14)] {
            guard let spki = try SecurityInfos(dg14: dg14).chipAuthenticationPublicKeyInfos.first?.subjectPublicKeyInfo else {
                throw BenchError.check("DG14 without a chip authentication key")
            }
            microseconds += try chipAuthenticationCost(spki)
        }
        if read.files[.dg(15)] != nil { microseconds += try activeAuthenticationCost() }
        return microseconds / 1000
    }

    private func ecCosts(_ curve: ECGroup.StandardCurve) throws -> OpenSSLFloor.Costs {
        if let known = curves[curve.rawValue] { return known }
        let costs = try OpenSSLFloor.measure(curve: curve, iterations: iterations)
        curves[curve.rawValue] = costs
        return costs
    }

    private func dhCosts(_ group: DHGroup.StandardGroup) throws -> OpenSSLFloor.DHCosts {
        if let known = dhGroups[group.rawValue] { return known }
        let costs = try OpenSSLFloor.measure(dhGroup: group, iterations: iterations)
        dhGroups[group.rawValue] = costs
        return costs
    }

    /// Decode and check the chip key, ephemeral key pair, shared secret (µs, median).
    private func chipAuthenticationCost(_ spki: [UInt8]) throws -> Double {
        if let known = chipAuthentication[spki] { return known }
        let cost = try medianCPUSync(iterations: iterations) {
            guard OpenSSLFloor.chipAuthentication(subjectPublicKeyInfo: spki) else { throw BenchError.check("CA floor failed") }
        } * 1000
        chipAuthentication[spki] = cost
        return cost
    }

    /// ECDSA P-256 SHA-256 verification of an 8-byte challenge's signature, as the DG15 key of
    /// ``AccessVariants`` needs (µs, median).
    private func activeAuthenticationCost() throws -> Double {
        if let known = activeAuthentication { return known }
        let key = try PrivateKey.generateEC(standardizedDomainParameterID: 12)
        let publicKey = try ActiveAuthenticationPublicKey(subjectPublicKeyInfo: key.subjectPublicKeyInfo())
        let challenge: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
        let plain = try key.ecdsaSign(digest: DigestAlgorithm.sha256.hash(challenge), plain: true)
        let half = plain.count / 2
        let der = ECDSASignatureEncoding.der(r: Array(plain[..<half]), s: Array(plain[half...]))
        let cost = try medianCPUSync(iterations: iterations) {
            guard OpenSSLFloor.ecdsaVerify(key: publicKey, message: challenge, derSignature: der, digest: .sha256) else {
                throw BenchError.check("AA floor failed")
            }
        } * 1000
        activeAuthentication = cost
        return cost
    }
}
