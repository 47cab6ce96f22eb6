package io.tablestorecdc.e2e.bench;

import java.util.Optional;

/**
 * The line a standalone emulator (EmulatorMain) prints on stdout once it serves: {@code
 * tablestore-emulator ready endpoint=http://127.0.0.1:PORT instance=NAME}.
 */
record ReadyLine(String endpoint, String instance) {

    static final String PREFIX = "tablestore-emulator ready ";

    /** The endpoint and instance of a ready line; empty for any other line. */
    static Optional<ReadyLine> parse(String line) {
        String text = line.strip();
        if (!text.startsWith(PREFIX)) {
            return Optional.empty();
        }
        String endpoint = null;
        String instance = null;
        for (String field : text.substring(PREFIX.length()).trim().split("\\s+")) {
            if (field.startsWith("endpoint=")) {
                endpoint = field.substring("endpoint=".length());
            } else if (field.startsWith("instance=")) {
                instance = field.substring("instance=".length());
            }
        }
        if (endpoint == null || instance == null || endpoint.isEmpty() || instance.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new ReadyLine(endpoint, instance));
    }
}
