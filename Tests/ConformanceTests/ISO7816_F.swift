import MRTDCore
import MRTDCrypto
import MRTDProtocol
import MRTDSimulation
import Testing

/// Unit ISO7816_F, Active Authentication (plan §5.6; eight cases moved to the ICAO test
/// specification, ICAO-P4 ISO7816_E_01..08, F_03 deleted: readings in notes/ISO7816_F.tsv).
/// Doc 9303-11 §6.1: INTERNAL AUTHENTICATE over an 8-byte challenge, verified with DG15's key; RSA
/// with ISO/IEC 9796-2 scheme 1 (trailer `BC` for SHA-1, `xx CC` naming the hash), ECDSA with the
/// hash of DG14's ActiveAuthenticationInfo.
@Suite(.statusAsserted) struct ISO7816_F {
    func read(_ key: ActiveAuthenticationKeySpec, dg14Faults: DG14Faults = [],
              chipFaults: VirtualChipAuthentication.Faults = []) async throws -> Conformance.Outcome {
        var document = try ConformanceProfile.bac.document()
        document.authentication = try AuthenticationFixture.make(
            activeAuthentication: key, dg14Faults: dg14Faults, chipFaults: chipFaults)
        return await Conformance.read(try document.chip(), try Conformance.options())
    }

    func expectPassed(_ outcome: Conformance.Outcome, _ algorithm: String? = nil) {
        Conformance.expectStatus(outcome.result, .valid)
        #expect(outcome.result.checks.activeAuthentication.result == .passed,
                "\(outcome.result.checks.activeAuthentication.reason ?? "")")
        #expect(outcome.commands(ins: 0x88).count == 1)
        if let algorithm { #expect(outcome.result.checks.activeAuthentication.algorithm?.contains(algorithm) == true,
                                   "\(outcome.result.checks.activeAuthentication.algorithm ?? "nil")") }
    }

    /// RSA, ISO/IEC 9796-2 with SHA-1 (trailer BC): passed.
    @Test func ISO7816_F_01() async throws { expectPassed(try await read(.rsa(bits: 1024, digest: .sha1)), "SHA-1") }

    /// ECDSA (brainpoolP256r1... here P-256) with SHA-256 named by ActiveAuthenticationInfo, plain r||s: passed.
    @Test func ISO7816_F_02() async throws {
        expectPassed(try await read(.ecdsa(curveID: 12, digest: .sha256, plain: true, withInfo: true)), "SHA-256")
    }

    /// RSA with SHA-224 (trailer 38CC): passed.
    @Test func ISO7816_F_04() async throws { expectPassed(try await read(.rsa(bits: 2048, digest: .sha224)), "SHA-224") }

    /// RSA with SHA-256 (trailer 34CC): passed.
    @Test func ISO7816_F_05() async throws { expectPassed(try await read(.rsa(bits: 2048, digest: .sha256)), "SHA-256") }

    /// RSA with SHA-384 (trailer 36CC): passed.
    @Test func ISO7816_F_06() async throws { expectPassed(try await read(.rsa(bits: 2048, digest: .sha384)), "SHA-384") }

    /// RSA with SHA-512 (trailer 35CC; a 2048-bit key, as 1024 bits leave no room for M1): passed.
    @Test func ISO7816_F_07() async throws { expectPassed(try await read(.rsa(bits: 2048, digest: .sha512)), "SHA-512") }

    /// The recovered block ends with a trailer that is neither BC nor xx CC: Active Authentication
    /// `failed` with its specific reason: the chip may be a clone, the inspection failed (`invalid`,
    /// docs/verification.md's verdict rules).
    @Test func ISO7816_F_08() async throws {
        let outcome = try await read(.rsa(bits: 2048, digest: .sha256), chipFaults: [.activeAuthenticationWrongTrailer])
        Conformance.expectStatus(outcome.result, .invalid)
        #expect(outcome.result.checks.activeAuthentication.result == .failed)
        #expect(outcome.result.checks.activeAuthentication.reason?.hasPrefix("activeAuthenticationSignatureInvalid") == true,
                "\(outcome.result.checks.activeAuthentication.reason ?? "nil")")
    }

    /// DG14's ActiveAuthenticationInfo names a signature algorithm that is none: Active
    /// Authentication `failed` (`activeAuthenticationAlgorithmUnknown`), no hash guessed: `invalid`.
    @Test func ISO7816_F_09() async throws {
        let outcome = try await read(.ecdsa(curveID: 12, digest: .sha256, plain: true, withInfo: true),
                                     dg14Faults: [.unknownActiveAuthenticationAlgorithm])
        Conformance.expectStatus(outcome.result, .invalid)
        #expect(outcome.result.checks.activeAuthentication.result == .failed)
        #expect(outcome.result.checks.activeAuthentication.reason == "activeAuthenticationAlgorithmUnknown: 1.2.3.4.5",
                "\(outcome.result.checks.activeAuthentication.reason ?? "nil")")
        #expect(outcome.commands(ins: 0x88).isEmpty)
    }
}
