package io.tablestorecdc.emulator.server;

/** An error the emulator answers with, as Tablestore would: an error code and an HTTP status. */
public final class EmulatorError extends Exception {

    private static final long serialVersionUID = 1L;

    private final String code;
    private final int httpStatus;

    public EmulatorError(String code, int httpStatus, String message) {
        super(message);
        this.code = code;
        this.httpStatus = httpStatus;
    }

    public String code() {
        return code;
    }

    public int httpStatus() {
        return httpStatus;
    }

    public static EmulatorError parameterInvalid(String message) {
        return new EmulatorError("OTSParameterInvalid", 400, message);
    }

    /** A primary key of the wrong size, column order or type: the service's own code for it. */
    public static EmulatorError invalidPk(String message) {
        return new EmulatorError("OTSInvalidPK", 400, message);
    }

    public static EmulatorError objectNotExist(String message) {
        return new EmulatorError("OTSObjectNotExist", 404, message);
    }
}
