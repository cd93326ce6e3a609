// The API models and the client moved to MRTDClient; the daemon serves them, and its users keep seeing
// them through `import MRTDDaemon`.
@_exported import MRTDClient
