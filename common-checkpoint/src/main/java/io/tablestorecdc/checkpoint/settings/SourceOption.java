package io.tablestorecdc.checkpoint.settings;

import io.tablestorecdc.checkpoint.merge.ServerAheadPolicy;
import io.tablestorecdc.checkpoint.meta.MetaTable;
import io.tablestorecdc.checkpoint.meta.SdkMetaTableClient;
import io.tablestorecdc.checkpoint.model.CredentialsSource;
import java.util.Arrays;
import java.util.Optional;

/**
 * An option both engines read: its key, its default and the text that describes it.
 *
 * <p>Flink builds its {@code ConfigOption}s from these (key, default, {@code withDescription});
 * Spark's options class aliases the keys. Options only one engine has are declared in that engine.
 */
public enum SourceOption {
    ENDPOINT(
            "endpoint",
            Kind.REQUIRED,
            null,
            "The Tablestore instance endpoint, http(s)://host[:port] with no path, e.g."
                    + " https://myinstance.cn-hangzhou.ots.aliyuncs.com."),
    INSTANCE_NAME(
            "instance.name",
            Kind.REQUIRED,
            null,
            "The Tablestore instance name: letters, digits, '_' and '-'."),
    ACCESS_KEY_ID(
            "access.key.id",
            Kind.OPTIONAL,
            null,
            "The access key id. Required with credentials.provider = static (the default)."),
    ACCESS_KEY_SECRET(
            "access.key.secret",
            Kind.SECRET,
            null,
            "The access key secret. Required with credentials.provider = static (the default)."
                    + " Never logged, and never shown in plans, toString() or error messages."),
    STS_TOKEN(
            "sts.token",
            Kind.SECRET,
            null,
            "Optional STS security token for temporary credentials. Never logged, and never"
                    + " shown in plans, toString() or error messages."),
    CREDENTIALS_PROVIDER(
            "credentials.provider",
            Kind.OPTIONAL,
            "static",
            "Where SDK clients get their credentials, resolved where each client is built and"
                    + " refreshed before they expire, never shipped in a plan or job graph: static"
                    + " (access.key.id, access.key.secret, sts.token), env (the variables"
                    + " ALIBABA_CLOUD_ACCESS_KEY_ID, ALIBABA_CLOUD_ACCESS_KEY_SECRET and optional"
                    + " ALIBABA_CLOUD_SECURITY_TOKEN), ecs-ram-role (the RAM role's temporary"
                    + " credentials from the ECS instance metadata service) or the fully qualified"
                    + " name of a public class implementing the Tablestore SDK's"
                    + " com.alicloud.openservices.tablestore.core.auth.CredentialsProvider with a"
                    + " public no-argument constructor."),
    CREDENTIALS_ECS_ROLE_NAME(
            "credentials.ecs.role.name",
            Kind.OPTIONAL,
            null,
            "With credentials.provider = ecs-ram-role: the RAM role whose credentials are used;"
                    + " unset for the one role attached to the instance."),
    CREDENTIALS_ECS_METADATA_ENDPOINT(
            "credentials.ecs.metadata.endpoint",
            Kind.OPTIONAL,
            CredentialsSource.DEFAULT_METADATA_ENDPOINT,
            "With credentials.provider = ecs-ram-role: the instance metadata service,"
                    + " http(s)://host[:port]."),
    TABLE_NAME(
            "table.name",
            Kind.REQUIRED,
            null,
            "The data table whose changes are read, or a comma-separated list of tables read in"
                    + " one source (each through its own tunnel named tunnel.name). Required"
                    + " unless table.pattern is set."),
    TABLE_PATTERN(
            "table.pattern",
            Kind.OPTIONAL,
            null,
            "Instead of table.name: a Java regular expression; every table whose whole name"
                    + " matches it is read in one source (each through its own tunnel named"
                    + " tunnel.name), and tables created later that match are picked up while"
                    + " the source runs. The meta table is never read."),
    TABLE_EXCLUDE(
            "table.exclude",
            Kind.OPTIONAL,
            null,
            "With table.pattern: a Java regular expression of whole table names to leave out."),
    TABLE_DISCOVERY_INTERVAL(
            "table.discovery.interval",
            Kind.OPTIONAL,
            "1min",
            "With table.pattern: how often the instance's tables are listed again to find new"
                    + " matching tables; 0s lists them only at start."),
    ON_DROPPED_TABLE(
            DroppedTablePolicy.OPTION_KEY,
            Kind.OPTIONAL,
            "skip",
            "With several tables: what to do when a table read is gone (dropped): skip (close its"
                    + " tunnel client, log a warning, count it in tablesDropped and go on with the"
                    + " other tables) or fail (stop the query or job, naming the table)."),
    TUNNEL_NAME(
            "tunnel.name",
            Kind.REQUIRED,
            null,
            "The tunnel to read. One query or job owns a tunnel at a time (a second consumer is"
                    + " refused): give each its own tunnel."),
    TUNNEL_CREATE(
            "tunnel.create",
            Kind.OPTIONAL,
            TunnelCreation.NONE.code(),
            "Create the tunnel when none of that name exists: none (it must exist), stream, base"
                    + " or base-and-stream. An existing tunnel is used as it is."),
    TUNNEL_START(
            "tunnel.start",
            Kind.OPTIONAL,
            TunnelStartText.LATEST,
            "Where the stream part of a tunnel the source creates starts: latest, earliest or an"
                    + " ISO-8601 instant such as 2024-05-01T00:00:00Z. Applies only with"
                    + " tunnel.create = stream or base-and-stream; an existing tunnel keeps the"
                    + " start it was created with, and a restored query or job resumes from its"
                    + " checkpoint."),
    META_TABLE(
            "meta.table",
            Kind.OPTIONAL,
            SdkMetaTableClient.DEFAULT_TABLE_NAME,
            "The meta table (created if missing) that holds the owner lease on the tunnel (a"
                    + " second consumer is refused) and the committed positions of every batch or"
                    + " checkpoint, so that progress is visible and either engine can resume."),
    META_FULL_SNAPSHOT_EVERY(
            "meta.full.snapshot.every",
            Kind.OPTIONAL,
            Integer.toString(MetaTable.DEFAULT_FULL_SNAPSHOT_EVERY),
            "How often the meta table gets a full snapshot of every channel's position: between"
                    + " two full snapshots, a batch or checkpoint writes only the channels that"
                    + " changed since the last full one (a delta), so its cost grows with the"
                    + " changes, not the partitions. A positive whole number of batches; 1 writes"
                    + " every snapshot in full."),
    META_RETENTION_BATCHES(
            "meta.retention.batches",
            Kind.OPTIONAL,
            Integer.toString(MetaTable.DEFAULT_RETENTION_BATCHES),
            "How many of the newest batches (Spark micro-batches, Flink checkpoints) the meta"
                    + " table keeps; older snapshots are purged after each write. Another"
                    + " consumer can resume from any batch kept, so keep at least as many as"
                    + " a restore may go back (older Flink checkpoints or savepoints, a Spark"
                    + " query's uncommitted batches). A whole number, at least 2."),
    SKIP_INVALID_DATA(
            "skip.invalid.data",
            Kind.OPTIONAL,
            "false",
            "Skip (and count) change records with a value that does not fit its declared column"
                    + " instead of failing."),
    IGNORE_DELETE(
            "ignore.delete",
            Kind.OPTIONAL,
            "false",
            "Drop row deletions instead of emitting them."),
    ON_SERVER_AHEAD(
            ServerAheadPolicy.OPTION_KEY,
            Kind.OPTIONAL,
            "fail",
            "What to do when the query or job was restored from state older than the tunnel"
                    + " server's and the server has since finished channels this state has not read"
                    + " to their end (a finished channel is never served again): fail (stop before"
                    + " delivering anything, naming the channels and the ways out) or skip (adopt"
                    + " the server's state for those channels, log each once and count them; every"
                    + " other guarantee holds).");

    private enum Kind {
        REQUIRED,
        REQUIRED_SECRET,
        OPTIONAL,
        SECRET
    }

    private final String key;
    private final Kind kind;
    private final String defaultValue;
    private final String description;

    SourceOption(String key, Kind kind, String defaultValue, String description) {
        this.key = key;
        this.kind = kind;
        this.defaultValue = defaultValue;
        this.description = description;
    }

    /** The option key, dotted lower case; a public contract. */
    public String key() {
        return key;
    }

    /** The value in effect when the option is not set, as option text; empty for none. */
    public Optional<String> defaultValue() {
        return Optional.ofNullable(defaultValue);
    }

    /** One text for Flink's {@code withDescription} and for the docs. */
    public String description() {
        return description;
    }

    /** Whether the source cannot be built without it. */
    public boolean required() {
        return kind == Kind.REQUIRED || kind == Kind.REQUIRED_SECRET;
    }

    /** Whether its value is a secret: never logged, never echoed in a message. */
    public boolean secret() {
        return kind == Kind.REQUIRED_SECRET || kind == Kind.SECRET;
    }

    /** The shared option of that exact key. */
    public static Optional<SourceOption> byKey(String key) {
        return Arrays.stream(values()).filter(o -> o.key.equals(key)).findFirst();
    }
}
