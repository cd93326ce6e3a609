import Foundation
import MRTDCore
import MRTDProtocol
import MRTDTesting
import Testing

@testable import MRTDReaders
import MRTDSimulation

/// Every LDS1 data group of the virtual specimen read through a real pcscd and vpcd: the files
/// arrive byte for byte and are parsed into the result. DG3/DG4 come from the TEST-ONLY virtual
/// chip that serves them without Terminal Authentication.
@Suite(.serialized) struct PCSCLDSTests {
    typealias Support = PCSCTestSupport

    @Test func everyLDS1GroupReadsThroughPcscdAndVpcd() async throws {
        let specimen = try SpecimenDocument.make(extraDataGroups: SpecimenDocument.additionalDataGroups()
            .merging(SpecimenDocument.biometricDataGroups()) { a, _ in a })
        try await Support.withDaemon { daemon, backend in
            let events = await EventRecorder.start(backend.events())
            let chip = VirtualChip(configuration: VirtualChipConfiguration(files: specimen.files, accessKey: Support.key))
            let card = VPCDCard(chip: chip, port: daemon.vpcdPort)
            try await card.insert(removeAfter: nil)
            let inserted = await events.next(within: .seconds(10)) { $0.isCardInserted }
            try #require(inserted != nil, "no cardInserted event")
            let connection = try await backend.connect(reader: PCSCDaemon.readerName)
            let read = await Support.read(connection, dataGroups: [1, 2, 3, 4, 5, 7, 11, 12, 13, 16])
            await connection.close()
            let r = read.result
            #expect(r.status == .unverified, "\(String(describing: r.error))")
            for number in [3, 4, 5, 7, 11, 12, 13, 16] {
                let same = read.files[.dg(number)] == specimen.files[.dg(number)]
                #expect(same, "DG\(number) differs")
            }
            #expect(r.warnings.filter { $0.hasPrefix("DG") }.isEmpty, "\(r.warnings)")
            #expect(r.personalDetails?.fullName == SpecimenDocument.Details.fullName)
            #expect(r.documentDetails?.dateOfIssue == "2007-04-15")
            #expect(r.personsToNotify?.first?.name == SpecimenDocument.Details.personToNotify)
            #expect(r.biometrics?.map(\.position) == ["rightIndex", "leftIndex", "rightEye"])
            #expect(r.images?.count == 7)
            print("FIGURES pcsc+vpcd full LDS read: \(r.transport.apdus) APDUs, \(r.transport.fileBytes) file bytes, "
                + "\(String(format: "%.0f", r.durationMs)) ms")
            await card.remove()
            await events.stop()
        }
    }

    /// `mrtdctl read --simulate` as a user runs it: the summary shows DG11/DG12/DG16 and the
    /// biometric records, `--images` writes every image, `--dump` every file.
    @Test func mrtdctlShowsTheDetailsAndWritesImagesAndFiles() async throws {
        guard let mrtdctl = PCSCHardwareLoopTests.mrtdctlPath else {
            Support.unavailable("mrtdctl is not built beside the tests (swift build --build-tests)")
            return
        }
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("mrtdctl-lds-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: base) }
        let images = base.appendingPathComponent("images").path
        let dump = base.appendingPathComponent("dump").path
        let (status, output) = try await PCSCHardwareLoopTests.run(mrtdctl, [
            "read", "--simulate", "--sim-full-lds", "--sim-biometrics", "--data-groups", "3,4,5,7,11,12,13,16",
            "--images", images, "--dump", dump,
        ])
        let text = String(decoding: output, as: UTF8.self)
        #expect(status == 0, "\(text)")
        for line in ["Full name     ERIKSSON<<ANNA<MARIA", "Personal no.  ZE184226B", "Authority     PASSPORT OFFICE ZENITH",
                     "Issued        2007-04-15 (20070415)", "Notify        ERIKSSON<<JOHAN",
                     "Biometric     DG3 rightIndex: ISO/IEC 19794-4, WSQ 400x500", "Status        valid"] {
            #expect(text.contains(line), "summary lacks '\(line)'")
        }
        let written = try FileManager.default.contentsOfDirectory(atPath: images).sorted()
        #expect(written == ["document-front.jpg", "document-rear.jp2", "finger-1.wsq", "finger-2.jpg", "iris-1.jpg",
                            "portrait-1.jpg", "signature-1.jp2"])
        let portrait = try Data(contentsOf: URL(fileURLWithPath: images).appendingPathComponent("portrait-1.jpg"))
        #expect(Array(portrait) == SpecimenDocument.faceImageBytes(.jpeg))
        let attributes = try FileManager.default.attributesOfItem(atPath: images)
        #expect((attributes[.posixPermissions] as? Int) == 0o700)
        let files = Set(try FileManager.default.contentsOfDirectory(atPath: dump))
        for number in [3, 4, 5, 7, 11, 12, 13, 16] { #expect(files.contains("DG\(number).bin")) }
    }
}
