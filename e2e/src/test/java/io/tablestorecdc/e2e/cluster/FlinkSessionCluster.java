package io.tablestorecdc.e2e.cluster;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.tablestorecdc.emulator.testkit.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A standalone Flink session cluster as a user runs one: a JobManager ({@code
 * StandaloneSessionClusterEntrypoint}) and TaskManagers ({@code TaskManagerRunner}), each in a JVM
 * of its own on the classpath a distribution's {@code lib/} holds (module {@code
 * flink-session-cluster}), with the memory settings Flink's start scripts compute. Jobs are
 * submitted as jars through the REST API or as SQL through the SQL Client with {@code --jar}; the
 * connector is never on the cluster's classpath, so it runs in the user-code classloader that Flink
 * closes when a job ends.
 */
public final class FlinkSessionCluster implements AutoCloseable {

    /** The flags Flink's distribution passes to every JVM it starts on Java 17. */
    private static final List<String> JAVA17_FLAGS =
            List.of(
                    "--add-exports=java.base/sun.net.util=ALL-UNNAMED",
                    "--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED",
                    "--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED",
                    "--add-opens=java.base/java.lang=ALL-UNNAMED",
                    "--add-opens=java.base/java.net=ALL-UNNAMED",
                    "--add-opens=java.base/java.io=ALL-UNNAMED",
                    "--add-opens=java.base/java.nio=ALL-UNNAMED",
                    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
                    "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
                    "--add-opens=java.base/java.text=ALL-UNNAMED",
                    "--add-opens=java.base/java.time=ALL-UNNAMED",
                    "--add-opens=java.base/java.util=ALL-UNNAMED",
                    "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
                    "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
                    "--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED");

    private static final String EXEC_RESULT = "BASH_JAVA_UTILS_EXEC_RESULT:";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

    private final Path dir;
    private final Path lib;
    private final Path conf;
    private final Map<String, String> env;
    private final int restPort;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final FlinkProcess jobManager;
    private final List<FlinkProcess> taskManagers = new ArrayList<>();
    private int taskManagersStarted;

    /** One JVM of the cluster. */
    public static final class FlinkProcess {
        private final String name;
        private final Process process;
        private final Path log;
        private final Path out;

        private FlinkProcess(String name, Process process, Path log, Path out) {
            this.name = name;
            this.process = process;
            this.log = log;
            this.out = out;
        }

        public String name() {
            return name;
        }

        public long pid() {
            return process.pid();
        }

        public boolean isAlive() {
            return process.isAlive();
        }

        /** Its Flink log file. */
        public Path log() {
            return log;
        }

        /** Its log and its standard output and error, as one text. */
        public String logText() {
            return read(log) + read(out);
        }

        /** Kills it with SIGKILL and waits until it is gone. */
        public void kill() throws InterruptedException {
            process.destroyForcibly();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                throw new AssertionError(name + " survived SIGKILL");
            }
        }

        /** The names of its live threads, from a thread dump. */
        public List<String> threadNames() {
            String dump = run(List.of(jcmd(), Long.toString(pid()), "Thread.print"));
            return dump.lines()
                    .filter(l -> l.startsWith("\""))
                    .map(l -> l.substring(1, l.indexOf('"', 1)))
                    .collect(Collectors.toList());
        }
    }

    private FlinkSessionCluster(Path dir, Path lib, Map<String, String> env, int taskManagerCount)
            throws IOException, InterruptedException {
        this.dir = Files.createDirectories(dir);
        this.lib = lib;
        this.env = env;
        this.conf = Files.createDirectories(dir.resolve("conf"));
        this.restPort = freePort();
        writeConfig(freePort());
        this.jobManager =
                launch(
                        "jobmanager",
                        "GET_JM_RESOURCE_PARAMS",
                        "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint");
        Await.until("the JobManager's REST API", START_TIMEOUT, this::restAnswers);
        for (int i = 0; i < taskManagerCount; i++) {
            startTaskManager();
        }
    }

    /**
     * Starts a cluster in {@code dir} with {@code taskManagers} TaskManagers of two slots each, its
     * JVMs given {@code env} (credentials, say) in their environment.
     */
    public static FlinkSessionCluster start(Path dir, Map<String, String> env, int taskManagers)
            throws IOException, InterruptedException {
        Path lib = Path.of(System.getProperty("tsc.flink.cluster.lib", "")).toAbsolutePath();
        if (!Files.isDirectory(lib)) {
            throw new IllegalStateException(
                    "No Flink lib/ at "
                            + lib
                            + "; build the module flink-session-cluster first (mvn package)");
        }
        return new FlinkSessionCluster(dir, lib, env, taskManagers);
    }

    /**
     * The shaded connector jar the build made (system property {@code tsc.flink.connector.jar}).
     */
    public static Path connectorJar() {
        Path jar = Path.of(System.getProperty("tsc.flink.connector.jar", ""));
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(
                    "No shaded connector jar at " + jar + "; build flink-connector first");
        }
        return jar;
    }

    public FlinkProcess jobManager() {
        return jobManager;
    }

    /** The TaskManagers started so far that still run. */
    public List<FlinkProcess> taskManagers() {
        return taskManagers.stream().filter(FlinkProcess::isAlive).collect(Collectors.toList());
    }

    /** Starts one more TaskManager and waits until the JobManager knows it. */
    public FlinkProcess startTaskManager() throws IOException, InterruptedException {
        List<String> known = registeredTaskManagers();
        FlinkProcess tm =
                launch(
                        "taskmanager-" + taskManagersStarted++,
                        "GET_TM_RESOURCE_PARAMS",
                        "org.apache.flink.runtime.taskexecutor.TaskManagerRunner");
        taskManagers.add(tm);
        Await.until(
                tm.name() + " registered with the JobManager",
                START_TIMEOUT,
                () -> !known.containsAll(registeredTaskManagers()));
        return tm;
    }

    /** Every log of the cluster's JVMs, as one text. */
    public String allLogs() {
        StringBuilder all = new StringBuilder(jobManager.logText());
        taskManagers.forEach(tm -> all.append(tm.logText()));
        return all.toString();
    }

    // ---- REST -------------------------------------------------------------------------------

    /** Uploads a job jar; returns its id on the cluster. */
    public String uploadJar(Path jar) throws IOException, InterruptedException {
        String boundary = "----tsc" + UUID.randomUUID();
        byte[] head =
                ("--"
                                + boundary
                                + "\r\nContent-Disposition: form-data; name=\"jarfile\";"
                                + " filename=\""
                                + jar.getFileName()
                                + "\"\r\nContent-Type: application/x-java-archive\r\n\r\n")
                        .getBytes(StandardCharsets.UTF_8);
        byte[] tail = ("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8);
        HttpRequest request =
                HttpRequest.newBuilder(uri("/jars/upload"))
                        .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                        .POST(
                                HttpRequest.BodyPublishers.ofByteArrays(
                                        List.of(head, Files.readAllBytes(jar), tail)))
                        .build();
        JsonObject answer = send(request).getAsJsonObject();
        String file = answer.get("filename").getAsString();
        return Path.of(file).getFileName().toString();
    }

    /** Runs the main class of an uploaded jar; returns the id of the job it submitted. */
    public String runJar(
            String jarId, String entryClass, List<String> args, Optional<String> savepoint)
            throws IOException, InterruptedException {
        JsonObject body = new JsonObject();
        body.addProperty("entryClass", entryClass);
        JsonArray argList = new JsonArray();
        args.forEach(argList::add);
        body.add("programArgsList", argList);
        savepoint.ifPresent(path -> body.addProperty("savepointPath", path));
        body.addProperty("parallelism", 2);
        HttpRequest request =
                HttpRequest.newBuilder(uri("/jars/" + jarId + "/run"))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                        .build();
        return send(request).getAsJsonObject().get("jobid").getAsString();
    }

    /** The job's state as the JobManager reports it (RUNNING, CANCELED, ...). */
    public String jobState(String jobId) {
        return get("/jobs/" + jobId).getAsJsonObject().get("state").getAsString();
    }

    /** Whether every task of the job runs. */
    public boolean allTasksRunning(String jobId) {
        JsonObject job = get("/jobs/" + jobId).getAsJsonObject();
        if (!"RUNNING".equals(job.get("state").getAsString())) {
            return false;
        }
        for (JsonElement vertex : job.getAsJsonArray("vertices")) {
            if (!"RUNNING".equals(vertex.getAsJsonObject().get("status").getAsString())) {
                return false;
            }
        }
        return true;
    }

    /** How often the job restarted after a failure ({@code numRestarts}). */
    public long restarts(String jobId) {
        JsonArray metrics = get("/jobs/" + jobId + "/metrics?get=numRestarts").getAsJsonArray();
        return metrics.isEmpty() ? 0 : metrics.get(0).getAsJsonObject().get("value").getAsLong();
    }

    /** The id of the checkpoint or savepoint the job's latest (re)start restored, if any. */
    public Optional<Long> restoredCheckpoint(String jobId) {
        JsonObject latest =
                get("/jobs/" + jobId + "/checkpoints").getAsJsonObject().getAsJsonObject("latest");
        JsonElement restored = latest == null ? null : latest.get("restored");
        if (restored == null || restored.isJsonNull()) {
            return Optional.empty();
        }
        return Optional.of(restored.getAsJsonObject().get("id").getAsLong());
    }

    /** Cancels the job ({@code PATCH /jobs/:id?mode=cancel}) and waits until it is CANCELED. */
    public void cancel(String jobId) throws IOException, InterruptedException {
        HttpRequest request =
                HttpRequest.newBuilder(uri("/jobs/" + jobId + "?mode=cancel"))
                        .method("PATCH", HttpRequest.BodyPublishers.noBody())
                        .build();
        send(request);
        Await.until(
                "job " + jobId + " canceled",
                Duration.ofSeconds(60),
                () -> "CANCELED".equals(jobState(jobId)));
    }

    /** Stops the job with a savepoint into {@code target}; returns the savepoint's path. */
    public String stopWithSavepoint(String jobId, Path target)
            throws IOException, InterruptedException {
        JsonObject body = new JsonObject();
        body.addProperty("targetDirectory", target.toUri().toString());
        body.addProperty("drain", false);
        HttpRequest request =
                HttpRequest.newBuilder(uri("/jobs/" + jobId + "/stop"))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                        .build();
        String trigger = send(request).getAsJsonObject().get("request-id").getAsString();
        String[] location = new String[1];
        Await.until(
                "the savepoint of job " + jobId,
                Duration.ofSeconds(90),
                () -> {
                    JsonObject status =
                            get("/jobs/" + jobId + "/savepoints/" + trigger).getAsJsonObject();
                    if (!"COMPLETED"
                            .equals(status.getAsJsonObject("status").get("id").getAsString())) {
                        return false;
                    }
                    JsonObject operation = status.getAsJsonObject("operation");
                    if (operation.has("failure-cause")) {
                        throw new AssertionError("Savepoint failed: " + operation);
                    }
                    location[0] = operation.get("location").getAsString();
                    return true;
                });
        Await.until(
                "job " + jobId + " finished after its savepoint",
                Duration.ofSeconds(60),
                () -> "FINISHED".equals(jobState(jobId)));
        return location[0];
    }

    // ---- SQL Client ---------------------------------------------------------------------------

    /**
     * Runs {@code sql} with the SQL Client as a user would ({@code sql-client.sh --jar JAR -f
     * FILE}); returns its output and its log. The client ends once the statements are submitted.
     */
    public String runSqlClient(Path connectorJar, String name, String sql)
            throws IOException, InterruptedException {
        Path file = Files.writeString(dir.resolve(name + ".sql"), sql);
        Path output = dir.resolve(name + ".sql-client.out");
        List<String> cmd = new ArrayList<>(javaCommand());
        cmd.add("-Dlog.file=" + dir.resolve(name + ".sql-client.log"));
        cmd.add("-Dlog4j.configurationFile=" + conf.resolve("log4j.properties").toUri());
        cmd.add("-cp");
        cmd.add(lib.resolve("*").toString());
        cmd.add("org.apache.flink.table.client.SqlClient");
        cmd.addAll(List.of("--jar", connectorJar.toString(), "-f", file.toString()));
        ProcessBuilder builder =
                new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(output.toFile());
        builder.environment().putAll(env);
        builder.environment().put("FLINK_CONF_DIR", conf.toString());
        Process client = builder.start();
        if (!client.waitFor(120, TimeUnit.SECONDS)) {
            client.destroyForcibly();
            throw new AssertionError("The SQL Client did not end; see " + output);
        }
        String out = read(output) + read(dir.resolve(name + ".sql-client.log"));
        if (client.exitValue() != 0) {
            throw new AssertionError(
                    "The SQL Client ended with " + client.exitValue() + ":\n" + out);
        }
        return out;
    }

    /** The ids of the jobs the cluster knows that are in {@code state}. */
    public List<String> jobs(String state) {
        List<String> ids = new ArrayList<>();
        for (JsonElement job : get("/jobs").getAsJsonObject().getAsJsonArray("jobs")) {
            JsonObject j = job.getAsJsonObject();
            if (state.equals(j.get("status").getAsString())) {
                ids.add(j.get("id").getAsString());
            }
        }
        return ids;
    }

    // ---- plumbing -----------------------------------------------------------------------------

    private void writeConfig(int rpcPort) throws IOException {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("jobmanager.rpc.address", "localhost");
        c.put("jobmanager.rpc.port", Integer.toString(rpcPort));
        c.put("jobmanager.bind-host", "localhost");
        c.put("rest.address", "localhost");
        c.put("rest.bind-address", "localhost");
        c.put("rest.port", Integer.toString(restPort));
        c.put("taskmanager.host", "localhost");
        c.put("taskmanager.bind-host", "localhost");
        c.put("taskmanager.numberOfTaskSlots", "2");
        c.put("parallelism.default", "2");
        c.put("jobmanager.memory.process.size", "1024m");
        c.put("taskmanager.memory.process.size", "1280m");
        c.put("execution.target", "remote");
        // A killed TaskManager is noticed within seconds, not the default 50 s.
        c.put("heartbeat.interval", "1000");
        c.put("heartbeat.timeout", "6000");
        c.put("restart-strategy.type", "fixed-delay");
        c.put("restart-strategy.fixed-delay.attempts", "20");
        c.put("restart-strategy.fixed-delay.delay", "1 s");
        c.put("classloader.check-leaked-classloader", "true");
        c.put("web.upload.dir", dir.resolve("uploads").toString());
        c.put("io.tmp.dirs", dir.resolve("tmp").toString());
        Files.createDirectories(dir.resolve("uploads"));
        Files.createDirectories(dir.resolve("tmp"));
        String yaml =
                c.entrySet().stream()
                        .map(e -> e.getKey() + ": " + quote(e.getValue()))
                        .collect(Collectors.joining("\n", "", "\n"));
        Files.writeString(conf.resolve("config.yaml"), yaml);
        Files.writeString(
                conf.resolve("log4j.properties"),
                String.join(
                        "\n",
                        "rootLogger.level = INFO",
                        "rootLogger.appenderRef.file.ref = MainAppender",
                        "appender.main.name = MainAppender",
                        "appender.main.type = File",
                        "appender.main.append = true",
                        "appender.main.fileName = ${sys:log.file}",
                        "appender.main.layout.type = PatternLayout",
                        "appender.main.layout.pattern = %d{HH:mm:ss,SSS} %-5p [%t] %c - %m%n",
                        "logger.pekko.name = org.apache.pekko",
                        "logger.pekko.level = WARN",
                        "logger.netty.name = org.apache.flink.shaded.netty4",
                        "logger.netty.level = WARN",
                        ""));
    }

    private static String quote(String value) {
        return value.matches("[A-Za-z0-9._/-]+") ? value : "'" + value + "'";
    }

    private FlinkProcess launch(String name, String resourceParams, String mainClass)
            throws IOException {
        List<String> computed =
                run(List.of(
                                javaExe(),
                                "-cp",
                                lib.resolve("*").toString(),
                                "org.apache.flink.runtime.util.bash.BashJavaUtils",
                                resourceParams,
                                "--configDir",
                                conf.toString()))
                        .lines()
                        .filter(l -> l.startsWith(EXEC_RESULT))
                        .map(l -> l.substring(EXEC_RESULT.length()))
                        .collect(Collectors.toList());
        if (computed.size() < 2) {
            throw new IllegalStateException(
                    "BashJavaUtils " + resourceParams + " printed no settings: " + computed);
        }
        Path log = dir.resolve(name + ".log");
        Path out = dir.resolve(name + ".out");
        List<String> cmd = new ArrayList<>(javaCommand());
        cmd.addAll(List.of(computed.get(0).trim().split("\\s+")));
        cmd.add("-Dlog.file=" + log);
        cmd.add("-Dlog4j.configurationFile=" + conf.resolve("log4j.properties").toUri());
        cmd.add("-cp");
        cmd.add(lib.resolve("*").toString());
        cmd.add(mainClass);
        cmd.addAll(List.of("--configDir", conf.toString()));
        cmd.addAll(List.of(computed.get(1).trim().split("\\s+")));
        ProcessBuilder builder =
                new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile());
        builder.environment().putAll(env);
        return new FlinkProcess(name, builder.start(), log, out);
    }

    private static List<String> javaCommand() {
        List<String> cmd = new ArrayList<>();
        cmd.add(javaExe());
        // JVMs on two shared cores: no parallel GC threads.
        cmd.add("-XX:+UseSerialGC");
        cmd.addAll(JAVA17_FLAGS);
        return cmd;
    }

    private static String javaExe() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static String jcmd() {
        return Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
    }

    /** The ids of the TaskManagers the JobManager knows (a lost one until it noticed). */
    private List<String> registeredTaskManagers() {
        List<String> ids = new ArrayList<>();
        for (JsonElement tm :
                get("/taskmanagers").getAsJsonObject().getAsJsonArray("taskmanagers")) {
            ids.add(tm.getAsJsonObject().get("id").getAsString());
        }
        return ids;
    }

    private boolean restAnswers() {
        if (!jobManager.isAlive()) {
            throw new AssertionError("The JobManager ended:\n" + jobManager.logText());
        }
        try {
            HttpResponse<String> r =
                    http.send(
                            HttpRequest.newBuilder(uri("/overview")).build(),
                            HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private JsonElement get(String path) {
        try {
            return send(HttpRequest.newBuilder(uri(path)).build());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private JsonElement send(HttpRequest request) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() >= 300) {
            throw new AssertionError(
                    request.method()
                            + " "
                            + request.uri()
                            + " answered "
                            + response.statusCode()
                            + ": "
                            + response.body());
        }
        return JsonParser.parseString(response.body());
    }

    private URI uri(String path) {
        return URI.create("http://localhost:" + restPort + path);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static String run(List<String> cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor(60, TimeUnit.SECONDS);
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Kills every JVM of the cluster. */
    @Override
    public void close() throws InterruptedException {
        for (FlinkProcess tm : taskManagers) {
            if (tm.isAlive()) {
                tm.kill();
            }
        }
        if (jobManager.isAlive()) {
            jobManager.kill();
        }
    }
}
