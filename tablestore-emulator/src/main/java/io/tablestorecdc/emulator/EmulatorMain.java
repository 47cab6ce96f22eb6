package io.tablestorecdc.emulator;

import java.util.concurrent.CountDownLatch;

/**
 * Runs the emulator as a standalone process: {@code java -jar tablestore-emulator.jar [--port N]
 * [--instance NAME] [--access-key-id ID] [--access-key-secret SECRET] [--data-dir DIR]
 * [--idle-timeout-ms MS]}. Prints one "ready" line on stdout once it serves, then runs until
 * killed.
 */
public final class EmulatorMain {

    private static final String USAGE =
            "usage: java -jar tablestore-emulator.jar [--port N]"
                    + " [--instance NAME] [--access-key-id ID] [--access-key-secret SECRET] [--data-dir DIR]"
                    + " [--idle-timeout-ms MS]";

    private EmulatorMain() {}

    public static void main(String[] args) throws InterruptedException {
        TablestoreEmulator.Builder builder = TablestoreEmulator.builder();
        try {
            parse(args, builder);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.println(USAGE);
            System.exit(2);
        }
        TablestoreEmulator emulator = builder.build().start();
        Runtime.getRuntime().addShutdownHook(new Thread(emulator::close, "emulator-shutdown"));
        System.out.println(
                "tablestore-emulator ready endpoint="
                        + emulator.endpoint()
                        + " instance="
                        + emulator.instanceName());
        System.out.flush();
        new CountDownLatch(1).await();
    }

    static void parse(String[] args, TablestoreEmulator.Builder builder) {
        for (int i = 0; i < args.length; i += 2) {
            String flag = args[i];
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("Missing value after " + flag);
            }
            String value = args[i + 1];
            switch (flag) {
                case "--port" -> builder.port(parsePort(value));
                case "--instance" -> builder.instanceName(value);
                case "--access-key-id" -> builder.accessKeyId(value);
                case "--access-key-secret" -> builder.accessKeySecret(value);
                case "--data-dir" -> builder.dataDir(java.nio.file.Path.of(value));
                case "--idle-timeout-ms" ->
                        builder.idleTimeout(java.time.Duration.ofMillis(parseNumber(flag, value)));
                default -> throw new IllegalArgumentException("Unknown option " + flag);
            }
        }
    }

    private static int parsePort(String value) {
        long port = parseNumber("--port", value);
        return port < 0 || port > 65535 ? -1 : (int) port; // the builder names the valid range
    }

    private static long parseNumber(String flag, String value) {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(flag + " needs a number, got '" + value + "'");
        }
    }
}
