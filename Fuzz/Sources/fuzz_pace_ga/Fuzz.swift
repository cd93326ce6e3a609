import FuzzSupport
import MRTDCore
import MRTDCrypto
import MRTDProtocol
import MRTDTesting
import MRTDSimulation
import MRTDTranscript

/// PACE (Doc 9303-11 §4.4) against chip answers from the input (`[mode][u16 len][R-APDU]…`, one per
/// command: MSE:Set AT, then each General Authenticate step), with the terminal's random fixed.
/// Modes: the Appendix G.1 (ECDH-GM) and G.2 (DH-GM) worked examples, ECDH-IM and ECDH-CAM
/// (answers recorded from the virtual chip). PACE either ends with a `ProtocolError` carrying a
/// code, secure messaging not started, or succeeds only on the genuine chip's ephemeral key and
/// authentication token (nothing else can produce a token that verifies).
@main enum FuzzPACEGeneralAuthenticate {
    static func main() {
        if FuzzSeeds.writeIfAsked({
            var seeds: [String: [UInt8]] = [:]
            for (index, mode) in modes.enumerated() where !mode.valid.isEmpty {
                seeds["valid_\(mode.name)"] = FuzzSeeds.chunks([UInt8(index)], mode.valid)
            }
            return seeds
        }) { return }
        FuzzDriver.run(test)
    }

    struct Mode {
        var name: String
        var parameters: PACEParameters
        var password: PACEPassword
        var random: [UInt8]?
        /// The genuine chip's answers.
        var valid: [[UInt8]]
        /// The group of the domain parameters, for checking the chip's keys independently.
        var group: any KeyAgreementGroup { groups[name]! }
    }

    static let groups: [String: any KeyAgreementGroup] = Dictionary(uniqueKeysWithValues: modes.map {
        ($0.name, try! KeyAgreementGroups.make($0.parameters.domainParameters))
    })

    final class StreamTransport: APDUTransport, @unchecked Sendable {
        var responses: [[UInt8]]
        var next = 0
        /// Each command's whole answer as the protocol saw it (ISO/IEC 7816-4 §5.3.4: a `61xx` answer is
        /// completed by GET RESPONSE, a `6Cxx` one replaced by the answer to the command resent).
        var answers: [[UInt8]] = []
        let capabilities = TransportCapabilities.extended
        init(_ responses: [[UInt8]]) { self.responses = responses }
        func transmit(_ command: [UInt8]) async throws -> [UInt8] {
            guard next < responses.count else { throw TransportError.cardRemoved }
            defer { next += 1 }
            let response = responses[next]
            let previousSW1 = answers.last.flatMap { $0.count >= 2 ? $0[$0.count - 2] : nil }
            if command.count >= 2, command[1] == 0xC0, previousSW1 == 0x61 {
                answers[answers.count - 1] = answers[answers.count - 1].dropLast(2) + response
            } else if previousSW1 == 0x6C {
                answers[answers.count - 1] = response
            } else {
                answers.append(response)
            }
            return response
        }
    }

    struct FixedRandom: RandomSource {
        var byte: UInt8
        func randomBytes(_ count: Int) throws -> [UInt8] { Array(repeating: byte, count: count) }
    }

    static func hex(_ text: String) -> [UInt8] { [UInt8](hex: text)! }

    static func parameters(_ info: PACEInfo) -> PACEParameters {
        try! PACEParameters.strongest(in: SecurityInfos(infos: [.pace(info)]))
    }

    static let appendixGKey = try! MRZKey(documentNumber: "T22000129", dateOfBirth: "640812", dateOfExpiry: "101031")
    static let specimenKey = try! MRZKey(documentNumber: "L898902C3", dateOfBirth: "740812", dateOfExpiry: "120415")

    static let modes: [Mode] = [
        Mode(name: "G1_ECDH_GM", parameters: parameters(PACEInfo(protocol: PACEProtocol(mapping: .gm, keyAgreement: .ecdh, cipher: .aes128)!, parameterID: 13)),
             password: .mrz(appendixGKey),
             random: hex("7F4EF07B9EA82FD78AD689B38D0BC78CF21F249D953BC46F4C6E19259C010F99A73FB703AC1436A18E0CFA5ABB3F7BEC7A070E7A6788486BEE230C4A22762595"),
             valid: ["9000", "7C12801095A3A016522EE98D01E76CB6B98B42C39000",
                     "7C43824104824FBA91C9CBE26BEF53A0EBE7342A3BF178CEA9F45DE0B70AA601651FBA3F5730D8C879AAA9C9F73991E61B58F4D52EB87A0A0C709A49DC63719363CCD13C549000",
                     "7C438441049E880F842905B8B3181F7AF7CAA9F0EFB743847F44A306D2D28C1D9EC65DF6DB7764B22277A2EDDC3C265A9F018F9CB852E111B768B326904B59A0193776F0949000",
                     "7C0A86083ABB9674BCE93C089000"].map(hex)),
        Mode(name: "G2_DH_GM", parameters: parameters(PACEInfo(protocol: PACEProtocol(mapping: .gm, keyAgreement: .dh, cipher: .aes128)!, parameterID: 0)),
             password: .mrz(appendixGKey),
             random: hex("5265030F751F4AD18B08AC565FC7AC952E41618D89CCD99B0E8D3B1F11E1296DCA68EC53411CF2CA"),
             valid: ["9000", "7C128010854D8DF5827FA6852D1A4FA701CDDDCA9000",
                     "7C818382818078879F57225AA8080D52ED0FC890A4B25336F699AA89A2D3A189654AF70729E623EA5738B26381E4DA19E004706FACE7B235C2DBF2F38748312F3C98C2DD4882A41947B324AA1259AC22579DB93F7085655AF30889DBB845D9E6783FE42C9F2449400306254C8AE8EE9DD812A804C0B66E8CAFC14F84D8258950A91B44126EE69000",
                     "7C8183848180075693D9AE941877573E634B6E644F8E60AF17A0076B8B123D9201074D36152BD8B3A213F53820C42ADC79AB5D0AEEC3AEFB91394DA476BD97B9B14D0A65C1FC71A0E019CB08AF55E1F729005FBA7E3FA5DC41899238A250767A6D46DB974064386CD456743585F8E5D90CC8B4004B1F6D866C79CE0584E49687FF61BC29AEA19000",
                     "7C0A8608917F37B5C0E6D8D19000"].map(hex)),
        recorded("ECDH_IM", PACEInfo(protocol: PACEProtocol(mapping: .im, keyAgreement: .ecdh, cipher: .aes128)!, parameterID: 12)),
        recorded("ECDH_CAM", PACEInfo(protocol: PACEProtocol(mapping: .cam, keyAgreement: .ecdh, cipher: .aes128)!, parameterID: 13)),
    ]

    /// A mode whose genuine answers come from the virtual chip (both sides' random fixed).
    static func recorded(_ name: String, _ info: PACEInfo) -> Mode {
        var mode = Mode(name: name, parameters: parameters(info), password: .mrz(specimenKey), random: nil, valid: [])
        let paceParameters = mode.parameters
        let recording: [[UInt8]]? = runBlocking {
            guard let configuration = try? VirtualChipConfiguration.paceChip(
                document: SpecimenDocument.make(), accessKey: specimenKey, infos: [info], random: FixedRandom(byte: 0x3C))
            else { return nil }
            let transport = RecordingTransport(VirtualChip(configuration: configuration))
            guard (try? await PACE.perform(channel: ChipChannel(transport: transport), parameters: paceParameters,
                                           password: .mrz(specimenKey), random: FixedRandom(byte: 0x5A))) != nil
            else { return nil }
            return transport.exchanges.map(\.response)
        }
        mode.valid = recording ?? []
        return mode
    }

    static let test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt = { data, size in
        var input = FuzzInput(data, size)
        let mode = modes[Int(input.byte()) % modes.count]
        var chunks: [[UInt8]] = []
        while !input.isEmpty, chunks.count < 8 { chunks.append(input.chunk()) }
        let random: any RandomSource = mode.random.map { ScriptedRandom($0) } ?? FixedRandom(byte: 0x5A)
        let (parameters, password, stream) = (mode.parameters, mode.password, chunks)
        // `responses[i]` is the whole answer to the i-th command (pieces fetched with GET RESPONSE
        // joined), `consumed` the number of commands that got one.
        let (outcome, secureMessagingStarted, responses): (Result<Bool, any Error>, Bool, [[UInt8]]) = runBlocking {
            let transport = StreamTransport(stream)
            let channel = ChipChannel(transport: transport)
            do {
                _ = try await PACE.perform(channel: channel, parameters: parameters, password: password, random: random)
                return (.success(true), channel.secureMessaging != nil, transport.answers)
            } catch {
                return (.failure(error), channel.secureMessaging != nil, transport.answers)
            }
        }
        let consumed = responses.count
        // Point validation (TR-03110-3 §A.2.2): PACE sends step 3 only after the chip's mapping key
        // (GM, CAM: tag 82 of step 2) validated, and step 4 only after its ephemeral key (tag 84).
        if mode.parameters.paceProtocol.mapping != .im, consumed >= 4, let key = element(0x82, in: responses[2]) {
            fuzzCheck((try? mode.group.validatePublicKey(key)) != nil, "PACE went on after an invalid chip mapping key (\(mode.name))")
        }
        if consumed >= 5, let key = element(0x84, in: responses[3]) {
            fuzzCheck((try? mode.group.validatePublicKey(key)) != nil, "PACE went on after an invalid chip ephemeral key (\(mode.name))")
        }
        switch outcome {
        case .success:
            fuzzCheck(mode.valid.count >= 5 && responses.count >= 5, "PACE succeeded on a fuzzed exchange (\(mode.name))")
            // The chip's ephemeral key (step 3) and token (step 4) are the genuine chip's.
            fuzzCheck(responses[3].prefix(responses[3].count - 2).elementsEqual(mode.valid[3].prefix(mode.valid[3].count - 2))
                      || fuzzContains(responses[3], mode.valid[3].dropFirst(4).dropLast(2)),
                      "PACE accepted a chip ephemeral key that is not the genuine one (\(mode.name))")
            fuzzCheck(fuzzContains(responses[4], Array(mode.valid[4].dropFirst(2).prefix(10))),
                      "PACE accepted a token that is not the genuine one (\(mode.name))")
        case .failure(let error):
            if let error = error as? ProtocolError {
                fuzzCheck(!error.code.isEmpty, "a PACE failure without a code")
            } else {
                fuzzCheck(error is TransportError, "PACE failed with \(type(of: error)): \(error)")
            }
            fuzzCheck(!secureMessagingStarted, "secure messaging started by a failed PACE")
        }
        return 0
    }

    /// The value of `tag` inside the `7C` template of a response (status word stripped), if it parses.
    static func element(_ tag: UInt, in response: [UInt8]) -> [UInt8]? {
        guard response.count > 2, let template = try? TLV.parse(response.dropLast(2), expecting: 0x7C),
              let element = try? template.child(tag) else { return nil }
        return element.bytes
    }
}
