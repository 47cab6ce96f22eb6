package io.tablestorecdc.e2e.bench;

import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyColumn;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import io.tablestorecdc.emulator.TablestoreEmulator;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The emulator in a child JVM (setting {@code emulator=process}): same java binary and class path
 * as the benchmark, main class EmulatorMain on a free port, reached over loopback, its stdout and
 * stderr in a log file. Ended on {@link #close} and by a shutdown hook if the benchmark dies first.
 * Table splits go through the emulator's admin HTTP route. The real-instance suite starts one with
 * a generated access key ({@link #start(String, String)}) and reaches it only as it would reach an
 * instance.
 */
public final class ChildEmulator implements BenchEmulator {

    static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    private static final String MAIN = "io.tablestorecdc.emulator.EmulatorMain";
    // The emulator keeps the whole change log of every tunnel in memory: with 1 GB, a 600000-row
    // backlog left its GC working hard enough to double the server's CPU per record in the longer
    // drains (the connectors'), which made the ceiling depend on the consumer.
    private static final String CHILD_XMX = "-Xmx3g";

    private final Process process;
    private final Path log;
    private final ReadyLine ready;
    private final Thread hook;
    private final HttpClient admin = HttpClient.newHttpClient();
    private final String accessKeyId;
    private final String accessKeySecret;

    private ChildEmulator(
            Process process,
            Path log,
            ReadyLine ready,
            Thread hook,
            String accessKeyId,
            String accessKeySecret) {
        this.process = process;
        this.log = log;
        this.ready = ready;
        this.hook = hook;
        this.accessKeyId = accessKeyId;
        this.accessKeySecret = accessKeySecret;
    }

    /** Starts the child and waits up to {@link #READY_TIMEOUT} for its ready line. */
    static ChildEmulator start() throws IOException, InterruptedException {
        return start(
                TablestoreEmulator.DEFAULT_ACCESS_KEY_ID,
                TablestoreEmulator.DEFAULT_ACCESS_KEY_SECRET);
    }

    /**
     * Starts a child that accepts only {@code accessKeyId} with {@code accessKeySecret}, on a free
     * port with the default instance name, and waits for its ready line.
     */
    public static ChildEmulator start(String accessKeyId, String accessKeySecret)
            throws IOException, InterruptedException {
        return start(command(accessKeyId, accessKeySecret), accessKeyId, accessKeySecret);
    }

    /** Starts {@code command} as the emulator (a test starts a command that never gets ready). */
    static ChildEmulator start(List<String> command) throws IOException, InterruptedException {
        return start(
                command,
                TablestoreEmulator.DEFAULT_ACCESS_KEY_ID,
                TablestoreEmulator.DEFAULT_ACCESS_KEY_SECRET);
    }

    private static ChildEmulator start(
            List<String> command, String accessKeyId, String accessKeySecret)
            throws IOException, InterruptedException {
        Path log = Files.createTempFile("tablestore-cdc-bench-emulator-", ".log");
        Process process =
                new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(log.toFile())
                        .start();
        Thread hook = new Thread(() -> end(process), "bench-emulator-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            return new ChildEmulator(
                    process, log, awaitReady(process, log), hook, accessKeyId, accessKeySecret);
        } catch (RuntimeException | InterruptedException e) {
            end(process);
            throw e;
        }
    }

    private static List<String> command(String accessKeyId, String accessKeySecret) {
        String java =
                ProcessHandle.current()
                        .info()
                        .command()
                        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        return List.of(
                java,
                CHILD_XMX,
                "-cp",
                System.getProperty("java.class.path"),
                MAIN,
                "--port",
                "0",
                "--instance",
                TablestoreEmulator.DEFAULT_INSTANCE,
                "--access-key-id",
                accessKeyId,
                "--access-key-secret",
                accessKeySecret);
    }

    /**
     * Polls the child's log for the ready line: the output goes straight to a file so that the
     * benchmark JVM spends no CPU copying it while it measures.
     */
    private static ReadyLine awaitReady(Process process, Path log)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            Optional<ReadyLine> ready =
                    Files.readAllLines(log, StandardCharsets.UTF_8).stream()
                            .map(ReadyLine::parse)
                            .flatMap(Optional::stream)
                            .findFirst();
            if (ready.isPresent()) {
                return ready.get();
            }
            if (process.waitFor(50, TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(
                        "The emulator child process ended with exit code "
                                + process.exitValue()
                                + " before it served; see its log "
                                + log);
            }
        }
        throw new IllegalStateException(
                "The emulator child process printed no ready line within "
                        + READY_TIMEOUT.toSeconds()
                        + " s; see its log "
                        + log
                        + ", or run with emulator=embedded");
    }

    @Override
    public String mode() {
        return "process";
    }

    @Override
    public String endpoint() {
        return ready.endpoint();
    }

    @Override
    public String instanceName() {
        return ready.instance();
    }

    @Override
    public String accessKeyId() {
        return accessKeyId;
    }

    @Override
    public String accessKeySecret() {
        return accessKeySecret;
    }

    /** {@code POST /_emulator/split {"table":T,"at":{PK}}} (tablestore-emulator README). */
    @Override
    public void split(String table, PrimaryKey at) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("table", table);
        body.put("at", keyJson(at));
        HttpRequest request =
                HttpRequest.newBuilder(URI.create(endpoint() + "/_emulator/split"))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(JsonText.render(body)))
                        .build();
        HttpResponse<String> response;
        try {
            response = admin.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException("Split of " + table + " failed; see " + log, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while splitting " + table, e);
        }
        if (response.statusCode() != 200) {
            throw new IllegalStateException(
                    "The emulator refused to split "
                            + table
                            + " at "
                            + at
                            + ": HTTP "
                            + response.statusCode()
                            + " "
                            + response.body());
        }
    }

    /** A key in the admin JSON form: column to string or integer (the bench uses no binary). */
    static Map<String, Object> keyJson(PrimaryKey key) {
        Map<String, Object> json = new LinkedHashMap<>();
        for (PrimaryKeyColumn c : key.getPrimaryKeyColumns()) {
            PrimaryKeyType type = c.getValue().getType();
            if (type == PrimaryKeyType.STRING) {
                json.put(c.getName(), c.getValue().asString());
            } else if (type == PrimaryKeyType.INTEGER) {
                json.put(c.getName(), c.getValue().asLong());
            } else {
                throw new IllegalArgumentException(
                        "Split keys with a " + type + " column are not supported by the benchmark");
            }
        }
        return json;
    }

    @Override
    public ServerCpu serverCpu() {
        return ServerCpu.childProcess(process.toHandle());
    }

    @Override
    public Optional<TablestoreEmulator> inProcess() {
        return Optional.empty();
    }

    @Override
    public void close() {
        end(process);
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // Already shutting down: the hook runs anyway and finds the child ended.
        }
    }

    /** SIGTERM (the emulator's own hook closes it), then a kill if it lingers. */
    private static void end(Process process) {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "emulator process " + process.pid() + " at " + endpoint() + " (log " + log + ")";
    }
}
