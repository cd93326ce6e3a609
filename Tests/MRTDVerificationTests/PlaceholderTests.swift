import Testing
@testable import MRTDVerification

@Test func moduleLinks() {
    #expect(String(describing: PassiveAuthentication.self) == "PassiveAuthentication")
}
