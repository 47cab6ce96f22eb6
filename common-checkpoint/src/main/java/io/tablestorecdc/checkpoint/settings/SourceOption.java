package io.tablestorecdc.checkpoint.settings;

import io.tablestorecdc.checkpoint.annotation.PublicEvolving;
import io.tablestorecdc.checkpoint.merge.ServerAheadPolicy;
import io.tablestorecdc.checkpoint.meta.MetaTable;
import io.tablestorecdc.checkpoint.meta.SdkMetaTableClient;
import io.tablestorecdc.checkpoint.model.CredentialsSource;
import java.util.Arrays;
import java.util.Optional;

/**
 * The options both engines read, each declared once as an {@link OptionSpec}: key, type, default,
 * bounds, description.
 *
 * <p>Flink builds its {@code ConfigOption}s from these, Spark parses with them, and the option
 * tables of {@code docs/spark.md}, {@code docs/flink.md} and {@code docs/pipeline.md} are generated
 * from them. Options only one engine has are declared in that engine, the same way.
 */
@PublicEvolving
public enum SourceOption {
    ENDPOINT(
            OptionSpec.key("endpoint")
                    .required()
                    .description(
                            "The Tablestore instance endpoint, `http(s)://host[:port]` with no path,"
                                    + " e.g. `https://myinstance.cn-hangzhou.ots.aliyuncs.com`.")),
    INSTANCE_NAME(
            OptionSpec.key("instance.name")
                    .required()
                    .description("The Tablestore instance name: letters, digits, `_` and `-`.")),
    ACCESS_KEY_ID(
            OptionSpec.key("access.key.id")
                    .requiredWhen("with `credentials.provider` = `static`")
                    .description("The access key id.")),
    ACCESS_KEY_SECRET(
            OptionSpec.key("access.key.secret")
                    .requiredWhen("with `credentials.provider` = `static`")
                    .secret()
                    .description(
                            "The access key secret. Never logged, and never shown in plans,"
                                    + " `toString()` or error messages.")),
    STS_TOKEN(
            OptionSpec.key("sts.token")
                    .secret()
                    .description(
                            "With `credentials.provider` = `static`: an STS security token for"
                                    + " temporary credentials; never logged or shown either. A"
                                    + " fixed token is not renewed: for a long-running query or"
                                    + " job use `ecs-ram-role` or a provider class.")),
    CREDENTIALS_PROVIDER(
            OptionSpec.key("credentials.provider")
                    .defaultValue("static")
                    .description(
                            "Where SDK clients get their credentials, resolved where each client is"
                                    + " built and refreshed before they expire, never shipped in a"
                                    + " plan or job graph: `static` (`access.key.id`,"
                                    + " `access.key.secret`, `sts.token`), `env` (the variables"
                                    + " `ALIBABA_CLOUD_ACCESS_KEY_ID`,"
                                    + " `ALIBABA_CLOUD_ACCESS_KEY_SECRET` and optional"
                                    + " `ALIBABA_CLOUD_SECURITY_TOKEN`), `ecs-ram-role` (the RAM"
                                    + " role's temporary credentials from the ECS instance metadata"
                                    + " service) or the fully qualified name of a public class"
                                    + " implementing the Tablestore SDK's"
                                    + " `com.alicloud.openservices.tablestore.core.auth.CredentialsProvider`"
                                    + " with a public no-argument constructor.")),
    CREDENTIALS_ECS_ROLE_NAME(
            OptionSpec.key("credentials.ecs.role.name")
                    .description(
                            "With `credentials.provider` = `ecs-ram-role`: the RAM role whose"
                                    + " credentials are used; unset for the one role attached to"
                                    + " the instance.")),
    CREDENTIALS_ECS_METADATA_ENDPOINT(
            OptionSpec.key("credentials.ecs.metadata.endpoint")
                    .defaultValue(CredentialsSource.DEFAULT_METADATA_ENDPOINT)
                    .description(
                            "With `credentials.provider` = `ecs-ram-role`: the instance metadata"
                                    + " service, `http(s)://host[:port]`.")),
    TABLE_NAME(
            OptionSpec.key("table.name")
                    .requiredWhen("unless `table.pattern`")
                    .description(
                            "The data table whose changes are read, or a comma-separated list of"
                                    + " tables read in one source, each through its own tunnel"
                                    + " named `tunnel.name`.")),
    TABLE_PATTERN(
            OptionSpec.key("table.pattern")
                    .description(
                            "Instead of `table.name`: a Java regular expression that must match a"
                                    + " whole table name. Every matching table of the instance is"
                                    + " read in one source, each through its own tunnel named"
                                    + " `tunnel.name`, and tables created later that match are"
                                    + " picked up while the source runs. The meta table is never"
                                    + " read.")),
    TABLE_EXCLUDE(
            OptionSpec.key("table.exclude")
                    .description(
                            "With `table.pattern`: a Java regular expression of whole table names"
                                    + " to leave out.")),
    TABLE_DISCOVERY_INTERVAL(
            OptionSpec.key("table.discovery.interval")
                    .durationType(true)
                    .defaultValue("1min")
                    .description(
                            "With `table.pattern`: how often the instance's tables are listed"
                                    + " again (ListTable) to find new matching tables and tables"
                                    + " that are gone; `0s` lists them only at start.")),
    ON_DROPPED_TABLE(
            OptionSpec.key(DroppedTablePolicy.OPTION_KEY)
                    .enumType(DroppedTablePolicy.class)
                    .defaultValue(DroppedTablePolicy.SKIP.toString())
                    .description(
                            "With several tables, when a table read is gone (dropped): `skip`"
                                    + " closes its tunnel client, logs a warning, counts it in"
                                    + " `tablesDropped` and goes on with the other tables; `fail`"
                                    + " stops the query or job with an error that names the table"
                                    + " (also on a restore whose state holds a table no longer"
                                    + " selected).")),
    TUNNEL_NAME(
            OptionSpec.key("tunnel.name")
                    .required()
                    .description(
                            "The tunnel to read (on each table, with several tables). One query or"
                                    + " job owns a tunnel at a time and a second consumer is"
                                    + " refused: give each its own tunnel.")),
    TUNNEL_CREATE(
            OptionSpec.key("tunnel.create")
                    .enumType(TunnelCreation.class)
                    .defaultValue(TunnelCreation.NONE.toString())
                    .description(
                            "`none`: the tunnel must exist. `stream`, `base`, `base-and-stream`:"
                                    + " create a tunnel of that type if none of that name exists."
                                    + " An existing tunnel is used as it is.")),
    TUNNEL_START(
            OptionSpec.key("tunnel.start")
                    .defaultValue(TunnelStartText.LATEST)
                    .description(
                            "Where the stream of a tunnel the source creates starts: `latest`,"
                                    + " `earliest` or an ISO-8601 instant such as"
                                    + " `2024-05-01T00:00:00Z`. Only with `tunnel.create` ="
                                    + " `stream` or `base-and-stream`: an existing tunnel keeps the"
                                    + " start it was created with, and a restored query or job"
                                    + " resumes from its checkpoint.")),
    META_TABLE(
            OptionSpec.key("meta.table")
                    .defaultValue(SdkMetaTableClient.DEFAULT_TABLE_NAME)
                    .description(
                            "The meta table (created if missing) that holds the owner lease on the"
                                    + " tunnel and the committed positions of every batch or"
                                    + " checkpoint, so that progress is visible and either engine"
                                    + " can resume; see [meta-table.md](meta-table.md).")),
    META_FULL_SNAPSHOT_EVERY(
            OptionSpec.key("meta.full.snapshot.every")
                    .intType(1, 1_000_000)
                    .defaultValue(Integer.toString(MetaTable.DEFAULT_FULL_SNAPSHOT_EVERY))
                    .description(
                            "A batch's or checkpoint's meta snapshot holds only the channels"
                                    + " changed since the last full one (a delta, whose cost grows"
                                    + " with the changes, not the partitions), and every this many"
                                    + " batches a full one is written; `1` writes every snapshot in"
                                    + " full. See [meta-table.md](meta-table.md#incremental-snapshots-format-2).")),
    META_RETENTION_BATCHES(
            OptionSpec.key("meta.retention.batches")
                    .intType(2, Integer.MAX_VALUE)
                    .defaultValue(Integer.toString(MetaTable.DEFAULT_RETENTION_BATCHES))
                    .description(
                            "How many of the newest batches (Spark micro-batches, Flink"
                                    + " checkpoints) the meta table keeps, with the full snapshots"
                                    + " they complete; older snapshots are purged after each write."
                                    + " Another consumer can resume from any batch kept, so keep at"
                                    + " least as many as a restore may go back.")),
    SKIP_INVALID_DATA(
            OptionSpec.key("skip.invalid.data")
                    .booleanType()
                    .defaultValue("false")
                    .description(
                            "`true`: a change record with a value that does not fit its declared"
                                    + " column is skipped and counted instead of failing.")),
    IGNORE_DELETE(
            OptionSpec.key("ignore.delete")
                    .booleanType()
                    .defaultValue("false")
                    .description("`true`: row deletions are dropped instead of emitted.")),
    ON_SERVER_AHEAD(
            OptionSpec.key(ServerAheadPolicy.OPTION_KEY)
                    .enumType(ServerAheadPolicy.class)
                    .defaultValue(ServerAheadPolicy.FAIL.toString())
                    .description(
                            "Restored from state older than the tunnel server's, after the server"
                                    + " finished channels this state has not read to their end (a"
                                    + " finished channel is never served again): `fail` stops"
                                    + " before delivering anything, naming the channels and the"
                                    + " ways out; `skip` adopts the server's state for them, logs"
                                    + " each once and counts them in"
                                    + " `channelsSkippedOnServerAhead`, every other guarantee kept."
                                    + " See [exactly-once.md](exactly-once.md#restoring-from-older-state)."));

    private final OptionSpec spec;

    SourceOption(OptionSpec spec) {
        this.spec = spec;
    }

    /** The declaration: type, default, bounds, description. */
    public OptionSpec spec() {
        return spec;
    }

    /** The option key, dotted lower case; a public contract. */
    public String key() {
        return spec.key();
    }

    /** The value in effect when the option is not set, as option text; empty for none. */
    public Optional<String> defaultValue() {
        return spec.defaultValue();
    }

    /** One text for Flink's {@code withDescription} and for the docs. */
    public String description() {
        return spec.description();
    }

    /** Whether every source needs it, whatever the other options say. */
    public boolean required() {
        return spec.required();
    }

    /** Whether its value is a secret: never logged, never echoed in a message. */
    public boolean secret() {
        return spec.secret();
    }

    /** The shared option of that exact key. */
    public static Optional<SourceOption> byKey(String key) {
        return Arrays.stream(values()).filter(o -> o.key().equals(key)).findFirst();
    }
}
