import Testing
import MRTDScanners
@testable import MRTDDaemon

@Suite struct MRZSourceConfigurationTests {
    @Test func theCommandLineFormWithOptions() throws {
        let source = try MRZSourceConfiguration(parsing: "serial:/dev/ttyUSB0,framing=rte,baud=19200,parity=even,reader=R 1,bcc=ignore")
        #expect(source.kind == .serial)
        #expect(source.device == "/dev/ttyUSB0")
        #expect(source.framing == .rte)
        #expect(source.baud == 19200)
        #expect(source.parity == .even)
        #expect(source.reader == "R 1")
        #expect(source.blockCheck == false)
        #expect(source.label == "serial:/dev/ttyUSB0")
        let hid = try MRZSourceConfiguration(parsing: "hidraw:/dev/hidraw3,report-size=32,enable-report=01 02:ff,name=ocr")
        #expect(hid.reportSize == 32)
        #expect(hid.enableReport == [0x01, 0x02, 0xFF])
        #expect(hid.label == "ocr")
        let wedge = try MRZSourceConfiguration(parsing: "evdev:/dev/input/event7,layout=fr,key-interval-ms=30")
        #expect(wedge.layout == .fr)
        #expect(wedge.keyIntervalMs == 30)
    }

    @Test(arguments: [
        "usb:/dev/ttyUSB0", "serial", "serial:dev/ttyUSB0", "serial:/dev/ttyUSB0,framing=xml", "serial:/dev/ttyUSB0,baud=9601",
        "serial:/dev/ttyUSB0,parity=mark", "evdev:/dev/input/event0,layout=dvorak", "hidraw:/dev/hidraw0,enable-report=0g",
        "serial:/dev/ttyUSB0,colour=blue", "serial:/dev/ttyUSB0,baud",
    ])
    func badSpecificationsAreRefused(spec: String) {
        #expect(throws: ConfigurationError.self) { try MRZSourceConfiguration(parsing: spec) }
    }

    @Test func linesAndSectionsInTheFile() throws {
        var configuration = DaemonConfiguration()
        try configuration.apply(file: """
            mrz-source = serial:/dev/ttyS0,framing=lines
            mrz-window = 45s
            mrz-owner = 1001

            [mrz-source]
            kind = hidraw
            device = /dev/mrtdd-mrz-accessis
            reader = R2   # the Access-IS RFID module

            [mrz-source]
            kind = evdev
            device = /dev/input/event4
            layout = de
            """)
        #expect(configuration.mrzSources.map(\.kind) == [.serial, .hidraw, .evdev])
        #expect(configuration.mrzSources[0].framing == .lines)
        #expect(configuration.mrzSources[1].reader == "R2")
        #expect(configuration.mrzSources[2].layout == .de)
        #expect(configuration.mrzWindow == .seconds(45))
        #expect(configuration.mrzOwner == 1001)
        // Keys after a section belong to it: a main setting there is an unknown option.
        var late = DaemonConfiguration()
        #expect(throws: ConfigurationError.self) {
            try late.apply(file: "[mrz-source]\nkind = serial\ndevice = /dev/ttyS0\nread-timeout = 5s\n")
        }
    }

    @Test(arguments: [
        ("[scanner]\nkind = serial\n", "mrtdd.conf:1: unknown section [scanner] (the one section is [mrz-source])"),
        ("[mrz-source]\nkind = serial\n", "mrtdd.conf:1: [mrz-source] needs kind (serial, hidraw, evdev) and device (an absolute path)"),
        ("[mrz-source]\nkind = serial\ndevice = /dev/ttyS0\nbaud = fast\n", "mrtdd.conf:1: invalid value 'fast' for 'mrz-source baud'"),
    ])
    func badSectionsAreRefusedWithTheirLine(text: String, message: String) {
        var configuration = DaemonConfiguration()
        do {
            try configuration.apply(file: text)
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.description == message)
        }
    }
}
