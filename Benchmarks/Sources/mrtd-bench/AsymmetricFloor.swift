import MRTDCore
import MRTDCrypto
import MRTDTesting

/// The public-key work of one read on bare OpenSSL (``OpenSSLFloor``): the PACE mapping and key
/// agreement, Chip Authentication against the DG14 key, Active Authentication against the DG15 key.
/// ``sample()`` times each operation once, so the harness can interleave floor samples with the
/// replays they are compared with.
struct AsymmetricFloor {
    private enum Mapping {
        case ec(ECGroup.StandardCurve, KeyPath<OpenSSLFloor.Costs, Double>)
        case dh(DHGroup.StandardGroup)
    }

    private var mapping: Mapping?
    private var chipAuthenticationKey: [UInt8]?
    private var activeAuthentication: (spki: [UInt8], challenge: [UInt8], signature: [UInt8])?
    /// TA: the terminal key and a message the size of `ID_PICC || r_PICC || Comp(PK_PCD)`.
    private var terminalKey: PrivateKey?

    /// What `read` needs: its PACE mapping, CA unless PACE-CAM authenticated the chip, AA when DG15 was read.
    init(_ read: RecordedRead) throws {
        var camDone = false
        if case .pace(let info) = read.variant.access {
            guard let id = info.parameterID, let proto = info.paceProtocol else { throw BenchError.check("PACEInfo without parameters") }
            if id <= 2 {
                guard let group = DHGroup.StandardGroup(rawValue: id), proto.mapping == .gm else {
                    throw BenchError.check("no DH floor for \(proto.name) #\(id)")
                }
                mapping = .dh(group)
            } else {
                guard let curve = ECGroup.StandardCurve(rawValue: id) else { throw BenchError.check("curve #\(id)") }
                switch proto.mapping {
                case .gm: mapping = .ec(curve, \.paceGenericMapping)
                case .im: mapping = .ec(curve, \.paceIntegratedMapping)
                case .cam:
                    mapping = .ec(curve, \.paceChipAuthenticationMapping)
                    camDone = true
                }
            }
        }
        if !camDone, let dg14 = read.files[.dg(14)] {
            guard let spki = try SecurityInfos(dg14: dg14).chipAuthenticationPublicKeyInfos.first?.subjectPublicKeyInfo else {
                throw BenchError.check("DG14 without a chip authentication key")
            }
            chipAuthenticationKey = spki
        }
        if let set = read.variant.terminal {
            guard read.result.checks.terminalAuthentication?.result == .passed else { throw BenchError.check("TA did not pass") }
            terminalKey = set.isKey
        }
        if let dg15 = read.files[.dg(15)] {
            // The DG15 key is ECDSA P-256 (``AccessVariants``); the signature comes from a key of the
            // same curve made here, as the chip's private key stays in the virtual chip.
            let key = try PrivateKey.generateEC(standardizedDomainParameterID: 12)
            let spki = try key.subjectPublicKeyInfo()
            guard spki.count == (try TLV.parse(dg15, expecting: 0x6F).bytes.count) else {
                throw BenchError.check("DG15 key is not ECDSA P-256")
            }
            let challenge: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
            let plain = try key.ecdsaSign(digest: DigestAlgorithm.sha256.hash(challenge), plain: true)
            let half = plain.count / 2
            activeAuthentication = (spki, challenge, ECDSASignatureEncoding.der(r: Array(plain[..<half]), s: Array(plain[half...])))
        }
    }

    /// One sample of the public-key work, in milliseconds: each PACE operation once (its setup not
    /// timed), CA (decode and check the DG14 key, ephemeral key, derivation) once, AA (decode the
    /// DG15 key, hash, ECDSA verification) once.
    func sample() throws -> Double {
        var microseconds = 0.0
        switch mapping {
        case .ec(let curve, let formula)?:
            microseconds += try OpenSSLFloor.measure(curve: curve, iterations: 1)[keyPath: formula]
        case .dh(let group)?:
            microseconds += try OpenSSLFloor.measure(dhGroup: group, iterations: 1).paceGenericMapping
        case nil:
            break
        }
        if let spki = chipAuthenticationKey {
            let start = processCPUMicroseconds()
            guard OpenSSLFloor.chipAuthentication(subjectPublicKeyInfo: spki) else { throw BenchError.check("CA floor failed") }
            microseconds += processCPUMicroseconds() - start
        }
        if let aa = activeAuthentication {
            let start = processCPUMicroseconds()
            guard OpenSSLFloor.ecdsaActiveAuthentication(subjectPublicKeyInfo: aa.spki, message: aa.challenge,
                                                         derSignature: aa.signature, digest: .sha256) else {
                throw BenchError.check("AA floor failed")
            }
            microseconds += processCPUMicroseconds() - start
        }
        if let terminalKey {
            let start = processCPUMicroseconds()
            let message = [UInt8](repeating: 0x5A, count: 10 + 8 + 32)
            guard OpenSSLFloor.terminalAuthenticationSignature(key: terminalKey, message: message, digest: .sha256) else {
                throw BenchError.check("TA floor failed")
            }
            microseconds += processCPUMicroseconds() - start
        }
        return microseconds / 1000
    }
}
