package io.tablestorecdc.emulator;

import io.tablestorecdc.emulator.cli.EmulatorCli;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;

/**
 * Runs the emulator as a standalone process: {@code java -jar tablestore-emulator.jar [--port N]
 * [--instance NAME] [--access-key-id ID] [--access-key-secret SECRET] [--data-dir DIR]
 * [--idle-timeout-ms MS] [--batch-write-repeated-keys refuse|accept] [--load FILE]}. Prints one
 * "ready" line on stdout once it serves (and has loaded the file), then runs until killed. With a
 * command first ({@code create-table}, {@code put}, {@code scan}, ...) it is the command line of a
 * running emulator instead ({@link EmulatorCli}).
 */
public final class EmulatorMain {

    private static final String USAGE =
            "usage: java -jar tablestore-emulator.jar [--port N]"
                    + " [--instance NAME] [--access-key-id ID] [--access-key-secret SECRET] [--data-dir DIR]"
                    + " [--idle-timeout-ms MS] [--batch-write-repeated-keys refuse|accept]"
                    + " [--load FILE]\n"
                    + "   or: java -jar tablestore-emulator.jar <command> --endpoint URL ... (run"
                    + " 'java -jar tablestore-emulator.jar help' for the commands)";

    private EmulatorMain() {}

    public static void main(String[] args) throws InterruptedException, IOException {
        if (EmulatorCli.isCommand(args)) {
            System.exit(EmulatorCli.run(args, System.getenv(), System.out, System.err));
        }
        if (args.length == 1 && args[0].equals("help")) {
            System.out.println(USAGE);
            System.out.println(EmulatorCli.USAGE);
            return;
        }
        TablestoreEmulator.Builder builder = TablestoreEmulator.builder();
        Optional<Path> load = Optional.empty();
        try {
            load = parse(args, builder);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.println(USAGE);
            System.exit(2);
        }
        TablestoreEmulator emulator = builder.build().start();
        Runtime.getRuntime().addShutdownHook(new Thread(emulator::close, "emulator-shutdown"));
        if (load.isPresent()) {
            try {
                System.err.println(EmulatorCli.load(emulator, load.get()));
            } catch (IOException | RuntimeException e) {
                System.err.println("Cannot load " + load.get() + ": " + e.getMessage());
                System.exit(2);
            }
        }
        System.out.println(
                "tablestore-emulator ready endpoint="
                        + emulator.endpoint()
                        + " instance="
                        + emulator.instanceName());
        System.out.flush();
        new CountDownLatch(1).await();
    }

    /** Applies the server options to {@code builder}; returns the file of {@code --load}. */
    static Optional<Path> parse(String[] args, TablestoreEmulator.Builder builder) {
        Optional<Path> load = Optional.empty();
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
                case "--load" -> load = Optional.of(Path.of(value));
                case "--batch-write-repeated-keys" ->
                        builder.batchWriteRepeatedKeys(parseChoice(flag, value));
                case "--idle-timeout-ms" ->
                        builder.idleTimeout(java.time.Duration.ofMillis(parseNumber(flag, value)));
                default -> throw new IllegalArgumentException("Unknown option " + flag);
            }
        }
        return load;
    }

    private static boolean parseChoice(String flag, String value) {
        return switch (value) {
            case "accept" -> true;
            case "refuse" -> false;
            default ->
                    throw new IllegalArgumentException(
                            flag + " takes refuse (the default) or accept, got '" + value + "'");
        };
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
