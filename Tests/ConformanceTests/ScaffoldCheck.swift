import MRTDCore
import MRTDProtocol
import MRTDSimulation
import Testing

/// The default configuration sets themselves: each reads as the plan's "inspection procedure
/// successful" with the operator's defaults, so that a case's failure is its modification's.
@Suite(.statusAsserted) struct DefaultConfigurations {
    @Test(arguments: ConformanceProfile.allCases)
    func defaultSetReadsValid(_ profile: ConformanceProfile) async throws {
        let outcome = try await Conformance.read(profile, Conformance.options(dataGroups: [1, 2, 3, 4, 14, 15], terminal: true))
        Conformance.expectStatus(outcome.result, .valid, "\(profile.rawValue): \(outcome.result.status) \(outcome.result.checks) \(String(describing: outcome.result.error))")
        #expect(outcome.result.checks.passiveAuthentication.result == .passed)
        let eac = profile == .eac || profile == .eacAA || profile == .eacPACE
        #expect(outcome.result.checks.chipAuthentication.result == (eac ? .passed : .notPerformed))
        #expect((outcome.read.files[.dg(3)] != nil) == eac)
    }
}
