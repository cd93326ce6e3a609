public import ArgumentParser
import MRTDCore
import MRTDCrypto
import MRTDSimulation
import MRTDTranscript
import FoundationEssentials
import MRTDPlatform

/// Chip and Active Authentication on the virtual chip (with --simulate): DG14/DG15 and their keys.
extension SimulatedAuthenticationFault: ExpressibleByArgument {}

struct AuthenticationSimulationOptions: ParsableArguments {
    @Option(name: .customLong("sim-ca"), help: ArgumentHelp(
        "Give the virtual chip a Chip Authentication key in DG14: KEYAGREEMENT,PARAMID,CIPHER[,v2], "
            + "e.g. ECDH,13,AES-128 or DH,2,3DES (repeatable: several keys get key IDs 1, 2, ...).",
        valueName: "spec"))
    var ca: [String] = []

    @Option(name: .customLong("sim-aa"), help: ArgumentHelp(
        "Give the virtual chip an Active Authentication key in DG15: RSA,BITS,HASH or ECDSA,PARAMID,HASH[,der], "
            + "e.g. RSA,2048,SHA-1 or ECDSA,12,SHA-256.",
        valueName: "spec"))
    var aa: String?

    @Option(name: .customLong("sim-auth-fault"), help: "Chip/Active Authentication fault: \(SimulatedAuthenticationFault.names).")
    var faults: [SimulatedAuthenticationFault] = []

    func validate() throws {
        _ = try chipAuthenticationSpecs()
        _ = try activeAuthenticationSpec()
    }

    /// The fixture, or `nil` when neither --sim-ca nor --sim-aa is given.
    func fixture() throws -> AuthenticationFixture? {
        let ca = try chipAuthenticationSpecs()
        let aa = try activeAuthenticationSpec()
        guard !ca.isEmpty || aa != nil else { return nil }
        let (dg14Faults, chipFaults) = SimulatedAuthenticationFault.split(faults)
        return try AuthenticationFixture.make(
            chipAuthentication: ca, activeAuthentication: aa, dg14Faults: dg14Faults, chipFaults: chipFaults)
    }

    private func chipAuthenticationSpecs() throws -> [ChipAuthenticationKeySpec] {
        try ca.enumerated().map { index, text in
            let parts = text.split(separator: ",").map { $0.trimmingSpaces().uppercased() }
            guard parts.count == 3 || (parts.count == 4 && parts[3] == "V2"), ["DH", "ECDH"].contains(parts[0]),
                  let id = Int(parts[1]), let cipher = SymmetricCipher(rawValue: parts[2])
            else { throw ValidationError("--sim-ca '\(text)': expected KEYAGREEMENT,PARAMID,CIPHER[,v2] such as ECDH,13,AES-128") }
            guard (parts[0] == "DH" && (0...2).contains(id)) || (parts[0] == "ECDH" && (8...18).contains(id)) else {
                throw ValidationError("--sim-ca '\(text)': parameter ID \(id) does not fit \(parts[0]) (DH 0-2, ECDH 8-18)")
            }
            return ChipAuthenticationKeySpec(domainParameterID: id, cipher: cipher, keyID: ca.count > 1 ? index + 1 : nil,
                                             version: parts.count == 4 ? 2 : 1)
        }
    }

    private func activeAuthenticationSpec() throws -> ActiveAuthenticationKeySpec? {
        guard let aa else { return nil }
        let parts = aa.split(separator: ",").map { $0.trimmingSpaces().uppercased() }
        let usage = ValidationError("--sim-aa '\(aa)': expected RSA,BITS,HASH or ECDSA,PARAMID,HASH[,DER]")
        guard parts.count >= 3, let number = Int(parts[1]), let digest = DigestAlgorithm(rawValue: parts[2]) else { throw usage }
        switch parts[0] {
        case "RSA" where parts.count == 3 && [1024, 1536, 2048, 3072, 4096].contains(number):
            return .rsa(bits: number, digest: digest)
        case "ECDSA" where (8...18).contains(number) && (parts.count == 3 || (parts.count == 4 && parts[3] == "DER")):
            return .ecdsa(curveID: number, digest: digest, plain: parts.count == 3, withInfo: true)
        default:
            throw usage
        }
    }
}
