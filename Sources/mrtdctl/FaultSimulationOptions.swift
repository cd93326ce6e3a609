import ArgumentParser
import MRTDCore
import MRTDProtocol
import MRTDSimulation
import MRTDTranscript

/// Faults of the virtual chip (with --simulate): the card pulled, a timeout, secure-messaging and
/// length errors at a chosen exchange, to watch the recovery policy (docs/reliability.md) at work.
struct FaultSimulationOptions: ParsableArguments {
    /// The fault kinds `--sim-fault` takes.
    static let kinds: [String: VirtualFault] = [
        "removal": .removal,
        "timeout": .timeout,
        "mute": .mute,
        "bad-mac": .chip(.corruptMAC),
        "6987": .chip(.plainStatus(.smDataObjectsMissing)),
        "6988": .chip(.plainStatus(.smDataObjectsIncorrect)),
        "plain-6700": .chip(.plainStatus(.wrongLength)),
        "plain-6982": .chip(.plainStatus(.securityStatusNotSatisfied)),
        "6700": .chip(.status(.wrongLength)),
        "6c80": .chip(.status(StatusWord(rawValue: 0x6C80))),
        "6b00": .chip(.status(.wrongParametersOffset)),
    ]

    @Option(name: .customLong("sim-remove-at"), help: ArgumentHelp(
        "Pull the virtual card when exchange N (zero-based, over the whole read) is sent; it is presented again at the reconnection (repeatable).",
        valueName: "N"))
    var removeAt: [Int] = []

    @Option(name: .customLong("sim-fault"), help: ArgumentHelp(
        "A fault at exchange N: KIND@N with KIND one of \(kinds.keys.sorted().joined(separator: ", ")) (repeatable).",
        valueName: "KIND@N"))
    var faultSpecs: [String] = []

    @Option(name: .customLong("sim-refused-reconnects"), help: "After a removal, this many reconnections find no card.")
    var refusedReconnects = 0

    @Flag(name: .customLong("sim-no-card-access"), help: "The virtual chip has no EF.CardAccess (no PACE on offer).")
    var noCardAccess = false

    func validate() throws {
        _ = try faults()
        if removeAt.contains(where: { $0 < 0 }) { throw ValidationError("--sim-remove-at takes an exchange index from 0") }
        if refusedReconnects < 0 { throw ValidationError("--sim-refused-reconnects takes a count from 0") }
    }

    /// The scheduled faults by exchange index.
    func faults() throws -> [Int: VirtualFault] {
        var faults: [Int: VirtualFault] = [:]
        for index in removeAt { faults[index] = .removal }
        for spec in faultSpecs {
            let parts = spec.lowercased().split(separator: "@", maxSplits: 1).map(String.init)
            guard parts.count == 2, let fault = Self.kinds[parts[0]], let index = Int(parts[1]), index >= 0 else {
                throw ValidationError("--sim-fault '\(spec)': expected KIND@N, KIND one of \(Self.kinds.keys.sorted().joined(separator: ", "))")
            }
            faults[index] = fault
        }
        return faults
    }

    /// Whether any fault was asked for (the read then goes through a reconnecting card slot).
    var isActive: Bool { !removeAt.isEmpty || !faultSpecs.isEmpty }
}
