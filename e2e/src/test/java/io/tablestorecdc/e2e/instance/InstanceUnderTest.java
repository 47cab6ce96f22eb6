package io.tablestorecdc.e2e.instance;

import com.alicloud.openservices.tablestore.core.auth.ServiceCredentials;
import io.tablestorecdc.checkpoint.model.CredentialsSource;
import io.tablestorecdc.checkpoint.model.TablestoreCredentials;
import io.tablestorecdc.checkpoint.tunnel.SdkCredentials;
import io.tablestorecdc.e2e.InstanceConnection;
import io.tablestorecdc.e2e.bench.ChildEmulator;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The instance the real-instance suite runs against, and the secrets it must never find in a log.
 *
 * <p>System property {@value #TARGET} chooses: {@code emulator} (the build's own execution) starts
 * the emulator in a child process on a free port with a generated access key, and the suite reaches
 * it only by endpoint, instance and credentials; {@code environment} (profile {@code
 * real-instance}) or unset takes {@value #ENDPOINT}, {@value #INSTANCE} and credentials through the
 * provider chain ({@value #PROVIDER}, {@code env} by default: {@code ALIBABA_CLOUD_ACCESS_KEY_ID}
 * and friends). Without them there is no instance, and the suite is skipped, never passed.
 */
final class InstanceUnderTest implements AutoCloseable {

    static final String TARGET = "tsc.real.instance.target";
    static final String ENDPOINT = "TABLESTORE_ENDPOINT";
    static final String INSTANCE = "TABLESTORE_INSTANCE";
    static final String PROVIDER = "TABLESTORE_CREDENTIALS_PROVIDER";
    static final String ECS_ROLE = "TABLESTORE_ECS_ROLE_NAME";

    private static final SecureRandom RANDOM = new SecureRandom();

    private final InstanceConnection connection;
    private final List<String> secrets;
    private final String origin;
    private final Optional<ChildEmulator> emulator;

    private InstanceUnderTest(
            InstanceConnection connection,
            List<String> secrets,
            String origin,
            Optional<ChildEmulator> emulator) {
        this.connection = connection;
        this.secrets = List.copyOf(secrets);
        this.origin = origin;
        this.emulator = emulator;
    }

    /** The instance, or why there is none (the reason the suite is skipped). */
    record Resolution(Optional<InstanceUnderTest> instance, String reason) {}

    /** Resolves the instance from this JVM's system property and environment. */
    static Resolution resolve() throws Exception {
        return resolve(System.getProperty(TARGET, ""), System.getenv());
    }

    static Resolution resolve(String target, Map<String, String> env) throws Exception {
        if (target.equals("emulator")) {
            return new Resolution(Optional.of(childEmulator()), "");
        }
        if (!target.isEmpty() && !target.equals("environment")) {
            throw new IllegalArgumentException(
                    "System property "
                            + TARGET
                            + " is '"
                            + target
                            + "': use emulator or environment");
        }
        String endpoint = env.getOrDefault(ENDPOINT, "");
        String instance = env.getOrDefault(INSTANCE, "");
        if (endpoint.isBlank() || instance.isBlank()) {
            return none(
                    "No Tablestore instance to run against: set "
                            + ENDPOINT
                            + " and "
                            + INSTANCE
                            + " and credentials (see docs/real-instance.md)");
        }
        CredentialsSource source = credentials(env);
        List<String> secrets = new ArrayList<>();
        try {
            ServiceCredentials now = SdkCredentials.open(source, env).getCredentials();
            secrets.add(now.getAccessKeySecret());
            Optional.ofNullable(now.getSecurityToken())
                    .filter(t -> !t.isEmpty())
                    .ifPresent(secrets::add);
        } catch (RuntimeException e) {
            return none("No credentials for " + endpoint + ": " + e.getMessage());
        }
        InstanceConnection connection =
                new InstanceConnection(endpoint.trim(), instance.trim(), source);
        return new Resolution(
                Optional.of(
                        new InstanceUnderTest(
                                connection, secrets, "the environment", Optional.empty())),
                "");
    }

    private static Resolution none(String reason) {
        return new Resolution(Optional.empty(), reason);
    }

    /** The provider chain's choice: {@value #PROVIDER}, {@code env} when unset. */
    private static CredentialsSource credentials(Map<String, String> env) {
        String provider = env.getOrDefault(PROVIDER, "").trim();
        return switch (provider) {
            case "", "env" -> CredentialsSource.environment();
            case "ecs-ram-role" ->
                    CredentialsSource.ecsRamRole(
                            CredentialsSource.DEFAULT_METADATA_ENDPOINT,
                            Optional.ofNullable(env.get(ECS_ROLE)));
            default -> CredentialsSource.providerClass(provider);
        };
    }

    private static InstanceUnderTest childEmulator() throws Exception {
        String id = "tsc-ri-" + randomHex(4);
        String secret = randomHex(16);
        ChildEmulator child = ChildEmulator.start(id, secret);
        InstanceConnection connection =
                new InstanceConnection(
                        child.endpoint(),
                        child.instanceName(),
                        CredentialsSource.fixed(TablestoreCredentials.of(id, secret)));
        return new InstanceUnderTest(
                connection, List.of(secret), "an emulator process", Optional.of(child));
    }

    private static String randomHex(int bytes) {
        byte[] random = new byte[bytes];
        RANDOM.nextBytes(random);
        return HexFormat.of().formatHex(random);
    }

    InstanceConnection connection() {
        return connection;
    }

    /** The secret (and STS token) in use: strings no log line may hold. */
    List<String> secrets() {
        return secrets;
    }

    /** Whether this is the emulator in a child process rather than an instance of the user's. */
    boolean isEmulator() {
        return emulator.isPresent();
    }

    @Override
    public void close() {
        emulator.ifPresent(ChildEmulator::close);
    }

    @Override
    public String toString() {
        return connection + " from " + origin;
    }
}
