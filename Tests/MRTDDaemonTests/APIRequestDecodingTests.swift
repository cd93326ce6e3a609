import Foundation
import Testing
@testable import MRTDDaemon
import MRTDProtocol
import MRTDCore
import MRTDClient

/// The request decoding the routes call and `fuzz_ipc_frame` fuzzes: each refusal has its own code.
@Suite struct APIRequestDecodingTests {
    @Test(arguments: [
        ("{", "malformedJSON"),
        ("[]", "invalidRequest"),
        (#"{"access":{"can":"123456"},"extra":1}"#, "unknownField"),
        (#"{"access":{"can":"123456","pin":"1"}}"#, "unknownField"),
        (#"{"access":{"can":123456}}"#, "invalidRequest"),
        (#"{"dataGroups":[14]}"#, "invalidRequest"),
    ])
    func malformedBodiesAreRefusedWithTheirCode(_ body: String, _ code: String) {
        #expect(throws: APIError.self) { try APIRequestDecoding.readJobRequest(Array(body.utf8)) }
        do {
            _ = try APIRequestDecoding.readJobRequest(Array(body.utf8))
        } catch {
            #expect(error.code == code)
            #expect(APIRequestDecoding.errorCodes.contains(error.code))
        }
    }

    @Test func aDecodedRequestRoundTripsThroughItsEncoding() throws {
        let body = #"{"reader":"R1","access":{"mrzKey":{"documentNumber":"L898902C3","dateOfBirth":"740812","dateOfExpiry":"120415"}},"dataGroups":[14,15],"accessPolicy":"pace","timeoutSeconds":12.5}"#
        let request = try APIRequestDecoding.readJobRequest(Array(body.utf8))
        let again = try APIRequestDecoding.readJobRequest(Array(try JSONEncoder().encode(request)))
        #expect(again == request)
        #expect(request.accessPolicy == .pace && request.timeoutSeconds == 12.5)
    }

    @Test(arguments: [("12345", false), ("1234567", false), ("12345a", false), ("123456", true)])
    func aCANIsSixDigitsAndTheRefusalNeverRepeatsIt(_ can: String, _ valid: Bool) {
        do {
            _ = try APIRequestDecoding.accessSecret(.init(can: can))
            #expect(valid)
        } catch {
            #expect(!valid)
            #expect(error.errorCode == .invalidAccessKey)
            #expect(!error.message.contains(can))
        }
    }

    @Test func queryParametersAndPaths() throws {
        #expect(try APIRequestDecoding.wait(uri: "/v1/reads?wait=true"))
        #expect(try !APIRequestDecoding.wait(uri: "/v1/reads?wait=false"))
        #expect(try !APIRequestDecoding.wait(uri: "/v1/reads"))
        for bad in ["yes", "-2.5e307", "", "TRUE", "1", "0"] {
            #expect(throws: APIError.self, "wait=\(bad)") { try APIRequestDecoding.wait(uri: "/v1/reads?wait=\(bad)") }
        }
        #expect(try APIRequestDecoding.wantsPNG(uri: "/v1/reads/x/face?format=png"))
        #expect(try !APIRequestDecoding.wantsPNG(uri: "/v1/reads/x/face"))
        #expect(throws: APIError.invalidFormat) { try APIRequestDecoding.wantsPNG(uri: "/v1/reads/x/face?format=gif") }
        #expect(throws: APIError.jobNotFound) { try APIRequestDecoding.jobID(String(repeating: "a", count: 65)) }
        #expect(throws: APIError.bodyTooLarge) {
            try APIRequestDecoding.checkBodyHeaders(contentType: "application/json", contentLength: "16385", maxBody: 16384)
        }
        #expect(throws: APIError.unsupportedMediaType) {
            try APIRequestDecoding.checkBodyHeaders(contentType: "text/plain", contentLength: nil, maxBody: 16384)
        }
        #expect(APIRoutes.allowedMethods("/v1/reads/abc/face") != nil)
        #expect(APIRoutes.allowedMethods("/v1/readers/abc") == nil)
    }
}
