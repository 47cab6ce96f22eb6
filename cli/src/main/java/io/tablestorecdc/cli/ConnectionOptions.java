package io.tablestorecdc.cli;

import io.tablestorecdc.checkpoint.meta.SdkMetaTableClient;
import io.tablestorecdc.checkpoint.model.CredentialsSource;
import io.tablestorecdc.checkpoint.model.TablestoreCredentials;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.checkpoint.tunnel.SdkCredentials;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The options every command shares: where the instance is, which meta table, and where the
 * credentials come from. A secret is never an option value (a process list would show it): it comes
 * from the environment, a credentials file, the instance's RAM role or a provider class.
 */
final class ConnectionOptions {

    /**
     * The environment variable {@code --endpoint} defaults to: the one the connectors' examples,
     * the emulator's shell and the real-instance tests read.
     */
    static final String ENDPOINT_ENV = "TABLESTORE_ENDPOINT";

    /** The environment variable {@code --instance} defaults to. */
    static final String INSTANCE_ENV = "TABLESTORE_INSTANCE";

    /** The former names of the two, still read, with a line that names the new one. */
    static final String OLD_ENDPOINT_ENV = "TABLESTORE_CDC_ENDPOINT";

    static final String OLD_INSTANCE_ENV = "TABLESTORE_CDC_INSTANCE";

    private final Map<String, String> env;

    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    @Option(
            names = "--endpoint",
            paramLabel = "URL",
            description =
                    "The instance's endpoint, http(s)://host[:port] (default: $"
                            + ENDPOINT_ENV
                            + ").")
    String endpoint;

    @Option(
            names = "--instance",
            paramLabel = "NAME",
            description = "The instance name (default: $" + INSTANCE_ENV + ").")
    String instance;

    ConnectionOptions() {
        this(System.getenv());
    }

    /** Options that read their defaults from {@code env}. */
    ConnectionOptions(Map<String, String> env) {
        this.env = env;
    }

    @Option(
            names = "--meta-table",
            defaultValue = SdkMetaTableClient.DEFAULT_TABLE_NAME,
            description =
                    "The connectors' meta table, as their meta.table option (default:"
                            + " ${DEFAULT-VALUE}).")
    String metaTable;

    @Option(
            names = "--credentials-provider",
            paramLabel = "PROVIDER",
            description =
                    "Where credentials come from, as the connectors' credentials.provider: env"
                            + " (ALIBABA_CLOUD_ACCESS_KEY_ID, ALIBABA_CLOUD_ACCESS_KEY_SECRET and"
                            + " optionally ALIBABA_CLOUD_SECURITY_TOKEN; the default),"
                            + " ecs-ram-role, or the class name of a CredentialsProvider.")
    String provider;

    @Option(
            names = "--credentials-file",
            paramLabel = "FILE",
            description =
                    "A properties file with access.key.id, access.key.secret and optionally"
                            + " sts.token (keep it readable by its owner only).")
    Path credentialsFile;

    @Option(
            names = "--ecs-role-name",
            paramLabel = "ROLE",
            description =
                    "With ecs-ram-role: the RAM role (default: the one attached to the instance).")
    String ecsRoleName;

    @Option(
            names = "--ecs-metadata-endpoint",
            paramLabel = "URL",
            description =
                    "With ecs-ram-role: the instance metadata service (default: ${DEFAULT-VALUE}).",
            defaultValue = CredentialsSource.DEFAULT_METADATA_ENDPOINT)
    String ecsMetadataEndpoint;

    /** The endpoint and its credentials source, checked. */
    TablestoreEndpoint endpoint() {
        return new TablestoreEndpoint(
                orEnvironment(endpoint, "--endpoint URL", ENDPOINT_ENV, OLD_ENDPOINT_ENV),
                orEnvironment(instance, "--instance NAME", INSTANCE_ENV, OLD_INSTANCE_ENV),
                credentials());
    }

    /** The option's value, else the variable's, else the former variable's (with a notice). */
    private String orEnvironment(String value, String option, String variable, String former) {
        if (value != null) {
            return value;
        }
        String set = env.get(variable);
        if (set != null && !set.isBlank()) {
            return set;
        }
        String old = env.get(former);
        if (old != null && !old.isBlank()) {
            command.commandLine()
                    .getErr()
                    .println(former + " is deprecated: set " + variable + " instead.");
            return old;
        }
        throw new UsageException(
                "Missing required option '"
                        + option.substring(0, option.indexOf(' '))
                        + "': give "
                        + option
                        + " or set "
                        + variable);
    }

    CredentialsSource credentials() {
        if (credentialsFile != null) {
            if (provider != null) {
                throw new UsageException(
                        "--credentials-file and --credentials-provider both say where credentials"
                                + " come from: give one of them");
            }
            return CredentialsSource.fixed(readFile(credentialsFile));
        }
        String kind = provider == null ? CredentialsSource.Kind.ENV.code() : provider;
        if (!kind.equals(CredentialsSource.Kind.ECS_RAM_ROLE.code()) && ecsRoleName != null) {
            throw new UsageException(
                    "--ecs-role-name applies only with --credentials-provider ecs-ram-role");
        }
        if (kind.equals(CredentialsSource.Kind.ENV.code())) {
            return CredentialsSource.environment();
        }
        if (kind.equals(CredentialsSource.Kind.ECS_RAM_ROLE.code())) {
            return CredentialsSource.ecsRamRole(
                    ecsMetadataEndpoint, Optional.ofNullable(ecsRoleName));
        }
        if (kind.equals(CredentialsSource.Kind.STATIC.code())) {
            throw new UsageException(
                    "--credentials-provider static takes the key from a file: use"
                            + " --credentials-file FILE instead");
        }
        SdkCredentials.providerClassProblem(kind)
                .ifPresent(
                        problem -> {
                            throw new UsageException(
                                    problem
                                            + " (--credentials-provider takes env, ecs-ram-role or"
                                            + " a provider class name)");
                        });
        return CredentialsSource.providerClass(kind);
    }

    private static TablestoreCredentials readFile(Path file) {
        Properties properties = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(in);
        } catch (IOException e) {
            throw new UsageException(
                    "Cannot read the credentials file "
                            + file
                            + " ("
                            + e.getClass().getSimpleName()
                            + "): check its path and permissions");
        }
        String id = required(properties, file, "access.key.id");
        String secret = required(properties, file, "access.key.secret");
        String token = properties.getProperty("sts.token", "").trim();
        return TablestoreCredentials.of(id, secret, token.isEmpty() ? null : token);
    }

    private static String required(Properties properties, Path file, String key) {
        String value = properties.getProperty(key, "").trim();
        if (value.isEmpty()) {
            throw new UsageException(
                    "The credentials file " + file + " has no " + key + "; add " + key + "=...");
        }
        return value;
    }

    /** The connections these options name; the caller closes them. */
    Service open(Clock clock) {
        return Service.open(endpoint(), metaTable, clock);
    }
}
