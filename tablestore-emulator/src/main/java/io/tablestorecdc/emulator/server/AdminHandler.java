package io.tablestorecdc.emulator.server;

import java.util.Map;

/** Serves one admin route under {@code /_emulator/}: JSON in, JSON out, no authentication. */
public interface AdminHandler {

    /**
     * @param method the HTTP method, upper case ({@code GET}, {@code POST}, {@code DELETE})
     * @param body the request body as text; empty when there is none
     * @param query the decoded query parameters (the first value of each)
     * @return the JSON response body
     */
    String handle(String method, String body, Map<String, String> query) throws EmulatorError;
}
