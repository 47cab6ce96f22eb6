package io.tablestorecdc.emulator.tunnel;

import io.tablestorecdc.emulator.server.EmulatorError;

/** The tunnel service's error answers, with the codes and HTTP statuses Tablestore documents. */
final class TunnelErrors {

    private TunnelErrors() {}

    static EmulatorError parameterInvalid(String message) {
        return EmulatorError.parameterInvalid(message);
    }

    /** Documented for a client whose heartbeats timed out: the client must connect again. */
    static EmulatorError clientGone(String clientId) {
        return new EmulatorError(
                "OTSResourceGone",
                410,
                "[tunnelservice] client not exist: "
                        + clientId
                        + " is unknown or its heartbeats timed out; connect the tunnel again");
    }

    static EmulatorError tunnelExpired(String tunnelId) {
        return new EmulatorError(
                "OTSTunnelExpired",
                400,
                "Tunnel " + tunnelId + " has expired; delete it and create a new tunnel");
    }

    static EmulatorError tunnelExists(String table, String name) {
        return new EmulatorError(
                "OTSTunnelExist",
                409,
                "Tunnel "
                        + name
                        + " already exists on table "
                        + table
                        + "; choose another name or delete the existing tunnel");
    }

    static EmulatorError sequenceNotMatch(String channelId, long expected, long got) {
        return new EmulatorError(
                "OTSSequenceNumberNotMatch",
                400,
                "Checkpoint sequence number "
                        + got
                        + " for channel "
                        + channelId
                        + " does not match; expected "
                        + expected
                        + ". Call getcheckpoint and continue from its sequence number + 1");
    }
}
