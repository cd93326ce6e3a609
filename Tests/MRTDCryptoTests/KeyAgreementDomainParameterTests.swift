import MRTDCore
import MRTDCrypto
import Testing

/// Chip Authentication keys on the group layer shared with PACE: what happens to domain
/// parameters that are damaged or unknown, and how a generated key's SubjectPublicKeyInfo names
/// its group.
@Suite("Key agreement domain parameters")
struct KeyAgreementDomainParameterTests {
    /// The SubjectPublicKeyInfo `spki` with the last byte of its `index`-th explicit domain
    /// parameter XORed with 0x02 (the same damage as `AuthenticationFixture`'s `invalidDomainParameters`).
    static func damaging(_ spki: [UInt8], parameter index: Int) throws -> [UInt8] {
        let outer = try TLV.parse(spki).children()
        let algorithm = try outer[0].children()
        var parameters = try algorithm[1].children().map(\.encoded)
        parameters[index][parameters[index].count - 1] ^= 0x02
        let damaged = TLV.encode(tag: 0x30, children: [algorithm[0].encoded, TLV.encode(tag: 0x30, children: parameters)])
        return TLV.encode(tag: 0x30, children: [damaged, outer[1].encoded])
    }

    @Test func explicitDHParametersWithACompositeModulusFailValidation() throws {
        let chip = try KeyAgreementKeyPair.generate(standardizedDomainParameterID: 1)
        let key = try KeyAgreementPublicKey(subjectPublicKeyInfo: Self.damaging(chip.subjectPublicKeyInfo(), parameter: 0))
        #expect(key.domainName == nil, "a damaged p is no longer RFC 5114's")
        #expect(key.problem() == .domainParametersInvalid)
        let intact = try KeyAgreementPublicKey(subjectPublicKeyInfo: chip.subjectPublicKeyInfo())
        #expect(intact.domainName == "RFC5114-2048-224" && intact.problem() == nil)
    }

    @Test func explicitCurveParametersWithAWrongOrderAreRefusedAsDomainParameters() throws {
        let chip = try KeyAgreementKeyPair.generate(standardizedDomainParameterID: 13)
        let spki = try Self.damaging(chip.subjectPublicKeyInfo(explicitParameters: true), parameter: 4)
        let error = #expect(throws: CryptoError.self) { try KeyAgreementPublicKey(subjectPublicKeyInfo: spki) }
        guard case .unsupported(let what)? = error else {
            Issue.record("expected CryptoError.unsupported, got \(String(describing: error))")
            return
        }
        #expect(what.contains("fail validation"))
    }

    @Test func aNamedCurveOutsideDoc9303IsUnsupported() throws {
        // id-ecPublicKey on secp256k1 (1.3.132.0.10), which Doc 9303-11 §9.5.1 does not list.
        let algorithm = TLV.encode(tag: 0x30, children: [
            TLV.encode(tag: 0x06, value: hex("2A8648CE3D0201")), TLV.encode(tag: 0x06, value: hex("2B8104000A")),
        ])
        let point = [UInt8(0x04)] + [UInt8](repeating: 0x01, count: 64)
        let spki = TLV.encode(tag: 0x30, children: [algorithm, TLV.encode(tag: 0x03, value: [0] + point)])
        #expect(throws: CryptoError.unsupported("named curve 1.3.132.0.10")) {
            try KeyAgreementPublicKey(subjectPublicKeyInfo: spki)
        }
    }

    @Test(arguments: [8, 12, 13, 18, 0, 2])
    func aGeneratedKeysSubjectPublicKeyInfoNamesItsGroup(_ id: Int) throws {
        let chip = try KeyAgreementKeyPair.generate(standardizedDomainParameterID: id)
        let spki = try SubjectPublicKeyInfo(encoded: chip.subjectPublicKeyInfo())
        let expected: DomainParameters? = switch try KeyAgreementGroups.standardized(id) {
        case let ec as ECGroup: ec.standardCurve.map { .namedCurve($0.oid) }
        case let dh as DHGroup: .dh(dh.parameters)
        default: nil
        }
        #expect(try spki.algorithm.domainParameters == expected)
        #expect(spki.algorithm.algorithm == (id > 2 ? SecurityProtocolOID.ecPublicKey : SecurityProtocolOID.dhPublicNumber))
        let reparsed = try KeyAgreementPublicKey(subjectPublicKeyInfo: chip.subjectPublicKeyInfo())
        #expect(reparsed.encodedPublicKey == chip.encodedPublicKey)
        #expect(reparsed.domainName == KeyAgreementGroups.name(ofStandardized: id))
    }
}
