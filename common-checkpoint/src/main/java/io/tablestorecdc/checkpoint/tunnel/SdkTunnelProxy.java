package io.tablestorecdc.checkpoint.tunnel;

import com.alicloud.openservices.tablestore.ClientConfiguration;
import com.alicloud.openservices.tablestore.TunnelClient;
import com.alicloud.openservices.tablestore.TunnelClientInterface;
import com.alicloud.openservices.tablestore.core.ResourceManager;
import com.alicloud.openservices.tablestore.model.NoRetryStrategy;
import com.alicloud.openservices.tablestore.model.tunnel.ChannelInfo;
import com.alicloud.openservices.tablestore.model.tunnel.ChannelStatus;
import com.alicloud.openservices.tablestore.model.tunnel.CreateTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.DescribeTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.DescribeTunnelResponse;
import com.alicloud.openservices.tablestore.model.tunnel.ListTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.ListTunnelResponse;
import com.alicloud.openservices.tablestore.model.tunnel.StartOffsetFlag;
import com.alicloud.openservices.tablestore.model.tunnel.StreamTunnelConfig;
import com.alicloud.openservices.tablestore.model.tunnel.TunnelInfo;
import com.alicloud.openservices.tablestore.model.tunnel.internal.Channel;
import com.alicloud.openservices.tablestore.model.tunnel.internal.CheckpointRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.ConnectTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.GetCheckpointRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.GetCheckpointResponse;
import com.alicloud.openservices.tablestore.model.tunnel.internal.HeartbeatRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.ReadRecordsRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.ShutdownTunnelRequest;
import com.alicloud.openservices.tablestore.tunnel.worker.TunnelClientConfig;
import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.lifecycle.CloseSequence;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.ServerChannel;
import io.tablestorecdc.checkpoint.model.ServerChannelStatus;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.checkpoint.model.TunnelType;
import io.tablestorecdc.checkpoint.tunnel.TunnelException.Kind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@link TunnelProxy} over the Tablestore SDK's {@code TunnelClient}: the only class that calls
 * the tunnel server.
 *
 * <p>It uses the SDK's low-level {@code model.tunnel.internal} requests (connect, heartbeat,
 * readrecords, getcheckpoint, checkpoint) rather than its {@code TunnelWorker}, because the
 * engines, not a worker thread pool, decide when a channel is read and when its progress is
 * durable. The SDK client is built without retries of its own, and every call goes through {@link
 * TransientRetry}.
 */
@Internal
public final class SdkTunnelProxy implements TunnelProxy {

    // The SDK's own "maybe more" rule when the server omits may_more_record: a response of more
    // than this many records, or of more than this many bytes, may have more behind it.
    static final int MAY_MORE_RECORDS = 500;
    static final int MAY_MORE_BYTES = 900 * 1024;

    private final TunnelClientInterface client;
    private final String description;
    private final TransientRetry retry;
    private final SecretRedactor redactor;
    private final TunnelMetrics metrics;
    // The records' undecoded path; absent for a client of tests, which reads through the SDK.
    private final Optional<RawReadRecords> rawReads;
    private final RecordReads reads;

    /** A proxy over a client of tests, reading records with {@code reads}. */
    SdkTunnelProxy(
            TunnelClientInterface client,
            RecordReads reads,
            String description,
            TransientRetry retry,
            SecretRedactor redactor,
            TunnelMetrics metrics) {
        this(client, Optional.empty(), reads, description, retry, redactor, metrics);
    }

    private SdkTunnelProxy(
            TunnelClientInterface client,
            Optional<RawReadRecords> rawReads,
            RecordReads reads,
            String description,
            TransientRetry retry,
            SecretRedactor redactor,
            TunnelMetrics metrics) {
        this.client = Objects.requireNonNull(client, "client");
        this.rawReads = rawReads;
        this.reads = Objects.requireNonNull(reads, "reads");
        this.description = Objects.requireNonNull(description, "description");
        this.retry = Objects.requireNonNull(retry, "retry");
        this.redactor = Objects.requireNonNull(redactor, "redactor");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
    }

    /** A proxy with the default retry policy and its own metrics. */
    public static SdkTunnelProxy create(TablestoreEndpoint endpoint) {
        return create(endpoint, TunnelRetryPolicy.DEFAULT, new TunnelMetrics());
    }

    /** A proxy that retries with {@code policy} and counts into {@code metrics}. */
    public static SdkTunnelProxy create(
            TablestoreEndpoint endpoint, TunnelRetryPolicy policy, TunnelMetrics metrics) {
        SdkCredentials credentials = SdkCredentials.open(endpoint.credentials());
        SecretRedactor redactor = SecretRedactor.of(credentials);
        ClientConfiguration configuration = singleAttemptConfiguration();
        // One HTTP client for both: the SDK's TunnelClient and the undecoded record reads.
        ResourceManager resources = new ResourceManager(configuration);
        TunnelClient client =
                new TunnelClient(
                        endpoint.endpoint(),
                        credentials,
                        endpoint.instanceName(),
                        configuration,
                        resources);
        RawReadRecords rawReads =
                new RawReadRecords(
                        endpoint.endpoint(),
                        endpoint.instanceName(),
                        resources.getResources().getHttpClient(),
                        credentials,
                        configuration);
        String description =
                "endpoint="
                        + endpoint.endpoint()
                        + ", instance="
                        + endpoint.instanceName()
                        + ", "
                        + credentials.describe();
        return new SdkTunnelProxy(
                client,
                Optional.of(rawReads),
                (request, channelId) -> toReadResult(rawReads.read(request), channelId),
                description,
                TransientRetry.withRealClock(policy, metrics, redactor),
                redactor,
                metrics);
    }

    // The SDK's default strategy does retry tunnel actions on OTSServerBusy and
    // OTSTunnelServerUnavailable (seen against the emulator with 5.17.10), for up to 10 s and
    // invisibly. TransientRetry is then the one retry layer: bounded by our policy, counted in
    // TunnelMetrics, and not multiplied by the SDK's own attempts.
    private static ClientConfiguration singleAttemptConfiguration() {
        ClientConfiguration configuration = new ClientConfiguration();
        configuration.setRetryStrategy(new NoRetryStrategy());
        return configuration;
    }

    /** The counters this proxy updates. */
    public TunnelMetrics metrics() {
        return metrics;
    }

    @Override
    public TunnelDescription describeTunnel(String tableName, String tunnelName) {
        String target = tunnelTarget(tableName, tunnelName);
        DescribeTunnelResponse response;
        try {
            response =
                    retry.call(
                            "describeTunnel",
                            target,
                            () ->
                                    client.describeTunnel(
                                            new DescribeTunnelRequest(tableName, tunnelName)));
        } catch (TunnelException e) {
            if (e.kind() == Kind.INVALID && !tunnelListed(tableName, tunnelName)) {
                throw new TunnelException(
                        Kind.NOT_FOUND,
                        e.errorCode().orElse(null),
                        "The "
                                + target
                                + " does not exist (or the table does not). "
                                + SdkErrorClassifier.advice(Kind.NOT_FOUND),
                        e);
            }
            throw e;
        }
        return toDescription(response.getTunnelInfo(), response.getChannelInfos());
    }

    /**
     * The table's tunnels, as the server lists them: each description without its channels (a
     * listing does not carry them; {@link #describeTunnel} does).
     *
     * @throws TunnelException {@link TunnelException.Kind#NOT_FOUND} when the table does not exist
     */
    public List<TunnelDescription> listTunnels(String tableName) {
        ListTunnelResponse list;
        try {
            list =
                    retry.call(
                            "listTunnel",
                            "table '" + tableName + "'",
                            () -> client.listTunnel(new ListTunnelRequest(tableName)));
        } catch (TunnelException e) {
            if (e.kind() == Kind.INVALID || e.kind() == Kind.NOT_FOUND) {
                throw new TunnelException(
                        Kind.NOT_FOUND,
                        e.errorCode().orElse(null),
                        "Table '"
                                + tableName
                                + "' has no tunnels to list: it does not exist or has no stream. "
                                + SdkErrorClassifier.advice(Kind.NOT_FOUND),
                        e);
            }
            throw e;
        }
        List<TunnelDescription> tunnels = new ArrayList<>();
        for (TunnelInfo info :
                list.getTunnelInfos() == null ? List.<TunnelInfo>of() : list.getTunnelInfos()) {
            tunnels.add(toDescription(info, List.of()));
        }
        tunnels.sort(Comparator.comparing(TunnelDescription::tunnelName));
        return tunnels;
    }

    /**
     * Lists the table's tunnels first: describing a missing tunnel is a failed request, which the
     * SDK logs as a warning on every first start (a newcomer reads it as a failure).
     */
    @Override
    public TunnelDescription describeOrCreateTunnel(
            String tableName, String tunnelName, TunnelType type, TunnelStart start) {
        if (!tunnelListed(tableName, tunnelName)) {
            try {
                createTunnel(tableName, tunnelName, type, start);
            } catch (TunnelException e) {
                if (e.kind() != Kind.ALREADY_EXISTS) {
                    throw e;
                }
            }
        }
        return TunnelProxy.super.describeOrCreateTunnel(tableName, tunnelName, type, start);
    }

    // The tunnel service answers a missing tunnel or table with OTSParameterInvalid, not
    // OTSObjectNotExist (its documented error codes), so the table's tunnel list tells a missing
    // tunnel from another bad parameter. When the list cannot be read for another reason, the
    // describe error stands.
    private boolean tunnelListed(String tableName, String tunnelName) {
        try {
            ListTunnelResponse list =
                    retry.call(
                            "listTunnel",
                            "table '" + tableName + "'",
                            () -> client.listTunnel(new ListTunnelRequest(tableName)));
            List<TunnelInfo> infos = list.getTunnelInfos();
            return infos != null
                    && infos.stream().anyMatch(t -> tunnelName.equals(t.getTunnelName()));
        } catch (TunnelException e) {
            return e.kind() != Kind.INVALID;
        }
    }

    @Override
    public String createTunnel(
            String tableName, String tunnelName, TunnelType type, TunnelStart start) {
        CreateTunnelRequest request = new CreateTunnelRequest(tableName, tunnelName, sdkType(type));
        if (type != TunnelType.BASE_DATA) {
            request.setStreamTunnelConfig(streamConfig(start));
        }
        return retry.call(
                        "createTunnel",
                        tunnelTarget(tableName, tunnelName),
                        () -> client.createTunnel(request))
                .getTunnelId();
    }

    @Override
    public TunnelClientId connect(String tunnelId, String clientTag, Duration heartbeatTimeout) {
        long timeoutSeconds = Math.max(1L, heartbeatTimeout.toSeconds());
        ConnectTunnelRequest request =
                new ConnectTunnelRequest(
                        tunnelId, new TunnelClientConfig(timeoutSeconds, clientTag));
        String clientId =
                retry.call("connect", "tunnel " + tunnelId, () -> client.connectTunnel(request))
                        .getClientId();
        return new TunnelClientId(tunnelId, clientId);
    }

    @Override
    public List<AssignedChannel> heartbeat(TunnelClientId id, List<HeldChannel> held) {
        List<Channel> channels = new ArrayList<>();
        for (HeldChannel h : held) {
            channels.add(new Channel(h.channelId(), h.version(), sdkStatus(h.status())));
        }
        HeartbeatRequest request = new HeartbeatRequest(id.tunnelId(), id.clientId(), channels);
        List<Channel> answer =
                retry.call("heartbeat", clientTarget(id), () -> client.heartbeat(request))
                        .getChannels();
        List<AssignedChannel> assigned = new ArrayList<>();
        for (Channel c : answer == null ? List.<Channel>of() : answer) {
            assigned.add(new AssignedChannel(c.getChannelId(), c.getVersion(), status(c)));
        }
        return assigned;
    }

    @Override
    public ServerCheckpoint getCheckpoint(TunnelClientId id, String channelId) {
        GetCheckpointRequest request =
                new GetCheckpointRequest(id.tunnelId(), id.clientId(), channelId);
        GetCheckpointResponse response =
                retry.call(
                        "getCheckpoint",
                        channelTarget(id, channelId),
                        () -> client.getCheckpoint(request));
        String token = response.getCheckpoint();
        if (token == null || token.isEmpty()) {
            throw new TunnelException(
                    Kind.MALFORMED_RESPONSE,
                    "The tunnel server returned an empty checkpoint for "
                            + channelTarget(id, channelId)
                            + "; the channel has no position to start from. Report this with the"
                            + " server version.");
        }
        return new ServerCheckpoint(ChannelPosition.at(token), response.getSequenceNumber());
    }

    @Override
    public long checkpoint(
            TunnelClientId id, String channelId, ChannelPosition position, long sequenceNumber) {
        try {
            sendCheckpoint(id, channelId, position, sequenceNumber);
            return sequenceNumber;
        } catch (TunnelException e) {
            if (e.kind() != Kind.CHECKPOINT_CONFLICT) {
                throw e;
            }
        }
        return resyncAndCheckpoint(id, channelId, position);
    }

    // OTSSequenceNumberNotMatch: our sequence number is stale (a restart, or an earlier attempt
    // that the server applied although we saw an error). Re-read once, as the SDK's Checkpointer
    // does, and send again once with the server's next number.
    private long resyncAndCheckpoint(
            TunnelClientId id, String channelId, ChannelPosition position) {
        metrics.recordResync();
        ServerCheckpoint server = getCheckpoint(id, channelId);
        if (server.position().token().equals(position.token())) {
            return server.sequenceNumber();
        }
        if (server.position().isFinished()) {
            throw new TunnelException(
                    Kind.CHECKPOINT_CONFLICT,
                    "The server checkpoint of "
                            + channelTarget(id, channelId)
                            + " is already finished; refusing to move it back to "
                            + position
                            + ". "
                            + SdkErrorClassifier.advice(Kind.CHECKPOINT_CONFLICT));
        }
        sendCheckpoint(id, channelId, position, server.nextSequenceNumber());
        return server.nextSequenceNumber();
    }

    private void sendCheckpoint(
            TunnelClientId id, String channelId, ChannelPosition position, long sequenceNumber) {
        CheckpointRequest request =
                new CheckpointRequest(
                        id.tunnelId(), id.clientId(), channelId, position.token(), sequenceNumber);
        retry.call("checkpoint", channelTarget(id, channelId), () -> client.checkpoint(request));
    }

    @Override
    public ReadResult readRecords(TunnelClientId id, String channelId, String token) {
        if (ChannelPosition.FINISHED_TOKEN.equals(token)) {
            throw new IllegalArgumentException(
                    "Channel " + channelId + " is finished; there is nothing to read after it");
        }
        ReadRecordsRequest request =
                new ReadRecordsRequest(id.tunnelId(), id.clientId(), channelId, token);
        return retry.call(
                "readRecords", channelTarget(id, channelId), () -> reads.read(request, channelId));
    }

    /** One response of {@code readrecords} as the server sent it, its records undecoded. */
    RecordsResponse readUndecoded(TunnelClientId id, String channelId, String token) {
        RawReadRecords raw =
                rawReads.orElseThrow(
                        () ->
                                new IllegalStateException(
                                        "This proxy reads records through the SDK's decoding"));
        ReadRecordsRequest request =
                new ReadRecordsRequest(id.tunnelId(), id.clientId(), channelId, token);
        return retry.call("readRecords", channelTarget(id, channelId), () -> raw.read(request));
    }

    /** As the SDK's {@code ResponseFactory.createReadRecordsResponse} reads the message. */
    static ReadResult toReadResult(RecordsResponse response, String channelId) {
        RecordPage records = new PlainBufferRecordPage(response, channelId);
        String nextToken = response.nextToken();
        ChannelPosition next =
                ChannelPosition.FINISHED_TOKEN.equals(nextToken)
                        ? ChannelPosition.finished()
                        : ChannelPosition.at(nextToken);
        boolean more =
                response.hasMayMoreRecord()
                        ? response.mayMoreRecord()
                        : records.size() > MAY_MORE_RECORDS
                                || response.serializedSize() > MAY_MORE_BYTES;
        return new ReadResult(records, next, more);
    }

    @Override
    public void shutdown(TunnelClientId id) {
        ShutdownTunnelRequest request = new ShutdownTunnelRequest(id.tunnelId(), id.clientId());
        retry.call("shutdown", clientTarget(id), () -> client.shutdownTunnel(request));
    }

    @Override
    public void close() {
        // Its I/O threads end even when the closing thread was interrupted (a cancelled task).
        CloseSequence.of("the tunnel client")
                .then("shut down its I/O threads", client::shutdown)
                .finish();
    }

    static TunnelDescription toDescription(TunnelInfo info, List<ChannelInfo> channelInfos) {
        if (info == null) {
            throw new TunnelException(
                    Kind.MALFORMED_RESPONSE,
                    "The tunnel server described a tunnel without its tunnel info; report this"
                            + " with the server version.");
        }
        TunnelType type = ourType(info.getTunnelType());
        List<ServerChannel> channels = new ArrayList<>();
        for (ChannelInfo c : channelInfos == null ? List.<ChannelInfo>of() : channelInfos) {
            channels.add(toServerChannel(c, type));
        }
        return new TunnelDescription(
                info.getTunnelId(),
                Objects.toString(info.getTunnelName(), ""),
                info.getTableName(),
                type,
                Optional.ofNullable(info.getStage()).map(SdkTunnelProxy::ourStage),
                info.isExpired(),
                channels);
    }

    private static ServerChannel toServerChannel(ChannelInfo c, TunnelType tunnelType) {
        ChannelType type;
        if (c.getChannelType() != null) {
            type =
                    c.getChannelType()
                                    == com.alicloud.openservices.tablestore.model.tunnel.ChannelType
                                            .BaseData
                            ? ChannelType.BASE_DATA
                            : ChannelType.STREAM;
        } else {
            // Older servers omit the type; a single-kind tunnel still tells it.
            type = tunnelType == TunnelType.BASE_DATA ? ChannelType.BASE_DATA : ChannelType.STREAM;
        }
        // A channel without a status has not been scheduled yet: treat it as held (WAIT), the
        // status under which nothing reads it.
        ServerChannelStatus status =
                c.getChannelStatus() == null
                        ? ServerChannelStatus.WAIT
                        : ServerChannelStatus.valueOf(c.getChannelStatus().name());
        Optional<String> clientId = Optional.ofNullable(c.getClientId()).filter(s -> !s.isEmpty());
        long consumedAt =
                c.getChannelConsumePoint() == null ? 0L : c.getChannelConsumePoint().getTime();
        return new ServerChannel(c.getChannelId(), type, status, clientId, consumedAt);
    }

    private static ServerChannelStatus status(Channel c) {
        if (c.getStatus() == null) {
            throw new TunnelException(
                    Kind.MALFORMED_RESPONSE,
                    "The tunnel server returned channel "
                            + c.getChannelId()
                            + " without a status in a heartbeat; report this with the server"
                            + " version.");
        }
        return ServerChannelStatus.valueOf(c.getStatus().name());
    }

    private static ChannelStatus sdkStatus(ServerChannelStatus status) {
        return ChannelStatus.valueOf(status.name());
    }

    private static TunnelType ourType(
            com.alicloud.openservices.tablestore.model.tunnel.TunnelType type) {
        if (type == null) {
            throw new TunnelException(
                    Kind.MALFORMED_RESPONSE, "The tunnel server described a tunnel without a type");
        }
        switch (type) {
            case BaseData:
                return TunnelType.BASE_DATA;
            case Stream:
                return TunnelType.STREAM;
            default:
                return TunnelType.BASE_AND_STREAM;
        }
    }

    private static com.alicloud.openservices.tablestore.model.tunnel.TunnelType sdkType(
            TunnelType type) {
        switch (type) {
            case BASE_DATA:
                return com.alicloud.openservices.tablestore.model.tunnel.TunnelType.BaseData;
            case STREAM:
                return com.alicloud.openservices.tablestore.model.tunnel.TunnelType.Stream;
            default:
                return com.alicloud.openservices.tablestore.model.tunnel.TunnelType.BaseAndStream;
        }
    }

    private static TunnelDescription.Stage ourStage(
            com.alicloud.openservices.tablestore.model.tunnel.TunnelStage stage) {
        switch (stage) {
            case InitBaseDataAndStreamShard:
                return TunnelDescription.Stage.INIT_BASE_AND_STREAM;
            case ProcessBaseData:
                return TunnelDescription.Stage.PROCESS_BASE_DATA;
            default:
                return TunnelDescription.Stage.PROCESS_STREAM;
        }
    }

    // The SDK sends a non-zero start offset instead of the flag, and a non-zero end offset
    // alongside either; both in milliseconds (it converts to nanoseconds on the wire).
    static StreamTunnelConfig streamConfig(TunnelStart start) {
        StreamTunnelConfig config =
                new StreamTunnelConfig(
                        start.kind() == TunnelStart.Kind.EARLIEST
                                ? StartOffsetFlag.EARLIEST
                                : StartOffsetFlag.LATEST);
        start.at().ifPresent(at -> config.setStartOffset(at.toEpochMilli()));
        start.end().ifPresent(end -> config.setEndOffset(end.toEpochMilli()));
        return config;
    }

    private static String tunnelTarget(String tableName, String tunnelName) {
        return "tunnel '" + tunnelName + "' of table '" + tableName + "'";
    }

    private static String clientTarget(TunnelClientId id) {
        return "tunnel " + id.tunnelId() + " (client " + id.clientId() + ")";
    }

    private static String channelTarget(TunnelClientId id, String channelId) {
        return "channel " + channelId + " of " + clientTarget(id);
    }

    @Override
    public String toString() {
        return redactor.redact("SdkTunnelProxy{" + description + ", metrics=" + metrics + "}");
    }
}
