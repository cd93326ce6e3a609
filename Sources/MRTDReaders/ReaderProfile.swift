public import MRTDCore

/// What the reader layer decides about one reader, by its name and by what its driver reports:
/// whether extended-length APDUs go to it, the largest answer asked of it, and how long an exchange
/// may take (docs/field-quirks.md, "Readers").
///
/// A reader known by name to fail on long frames is held to short APDUs whatever its driver claims;
/// otherwise the probed capability (PC/SC v2 Part 10 `dwMaxAPDUDataSize`, `SCARD_ATTR_MAXINPUT`)
/// decides; a reader that says nothing is tried with extended length and dropped to short APDUs on
/// its first failure (``PCSCConnection``).
public struct ReaderProfile: Sendable, Equatable {
    /// The profile's name: a known reader family, "probed" or "unknown".
    public var name: String
    /// What the protocol layer may send and ask for through this reader.
    public var capabilities: TransportCapabilities
    /// How long one exchange may take before the chip counts as not answering.
    public var exchangeTimeout: Duration
    /// Why, with the public report behind it.
    public var reason: String

    public init(name: String, capabilities: TransportCapabilities, exchangeTimeout: Duration, reason: String) {
        self.name = name
        self.capabilities = capabilities
        self.exchangeTimeout = exchangeTimeout
        self.reason = reason
    }

    /// Slow chips answer READ BINARY in 1.5 s and more (NFCPassportReader#107); readers that gave
    /// up sooner lost the tag (passport-reader#16, fixed there with a 5 s timeout). No exchange
    /// timeout is shorter than this.
    public static let minimumExchangeTimeout = Duration.seconds(5)

    /// Short APDUs with answers of at most 160 data bytes: SCL3711 long frames fail.
    public static let shortFrames = TransportCapabilities(extendedLength: false, maxCommandLength: 261, maxResponseLength: 162)

    /// A reader family known by name.
    struct Known: Sendable {
        var patterns: [String]
        var name: String
        var capabilities: TransportCapabilities
        var reason: String
    }

    /// Readers known by name (case-insensitive substrings of the PC/SC or libnfc reader name).
    static let known: [Known] = [
        Known(patterns: ["ACR122"], name: "ACR122U", capabilities: .shortOnly,
              reason: "ACR122U: a PN532 behind a CCID front end passes short APDUs only"),
        Known(patterns: ["SCL3711"], name: "SCL3711", capabilities: shortFrames,
              reason: "SCL3711 fails on long messages (LudovicRousseau/PCSC#106): short APDUs, answers of at most 160 bytes"),
        Known(patterns: ["PN532", "PN533", "pn53x"], name: "PN53x", capabilities: .shortOnly,
              reason: "PN53x frames hold 264 bytes: short APDUs only; Type B cards may not show up on some PN532 boards (libnfc#342)"),
        Known(patterns: ["ACR1281", "ACR1252"], name: "ACS CCID (acsccid)", capabilities: .shortOnly,
              reason: "extended APDUs are not passed to the card by this ACS reader (acshk/acsccid#42, acshk/acsccid#15)"),
    ]

    /// The profile of the reader named `readerName`, given what its driver reported (`probed`,
    /// nil when it said nothing) and the configured exchange timeout.
    public static func decide(
        readerName: String, probed: TransportCapabilities?, configuredTimeout: Duration = minimumExchangeTimeout
    ) -> ReaderProfile {
        let timeout = max(configuredTimeout, minimumExchangeTimeout)
        let lowered = readerName.lowercased()
        if let family = known.first(where: { $0.patterns.contains { lowered.contains($0.lowercased()) } }) {
            var caps = family.capabilities
            if let probed {
                // The driver may know still less (a T=0 slot, a smaller buffer).
                caps.extendedLength = caps.extendedLength && probed.extendedLength
                caps.maxCommandLength = min(caps.maxCommandLength, probed.maxCommandLength)
                caps.maxResponseLength = min(caps.maxResponseLength, probed.maxResponseLength)
            }
            return ReaderProfile(name: family.name, capabilities: caps, exchangeTimeout: timeout, reason: family.reason)
        }
        if let probed {
            let why = probed.extendedLength
                ? "the driver reports extended APDUs (up to \(probed.maxCommandLength) bytes)"
                : "the driver reports short APDUs only (CCID short-APDU exchange level; OpenSC#802)"
            return ReaderProfile(name: "probed", capabilities: probed, exchangeTimeout: timeout, reason: why)
        }
        return ReaderProfile(
            name: "unknown", capabilities: .extended, exchangeTimeout: timeout,
            reason: "the driver says nothing: extended length is tried and dropped on its first failure")
    }

    /// Whether the reader is known by name (its profile overrides what its driver claims).
    public var isKnownByName: Bool { name != "probed" && name != "unknown" }
}
