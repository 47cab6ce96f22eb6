package io.tablestorecdc.emulator.server;

/**
 * Serves API actions: takes an action's protobuf request body and returns its protobuf response
 * body. The server does transport, authentication, signing and fault injection around it.
 */
public interface ActionHandler {

    /**
     * @param action the path without its leading slash, for example {@code PutRow} or {@code
     *     tunnel/readrecords}
     * @param requestBody the (already inflated) protobuf request
     * @return the protobuf response body
     */
    byte[] handle(String action, byte[] requestBody) throws EmulatorError;
}
