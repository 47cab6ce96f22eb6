package io.tablestorecdc.checkpoint.tunnel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.TableStoreException;
import com.alicloud.openservices.tablestore.core.protocol.TunnelServiceApi;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyColumn;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.Response;
import com.alicloud.openservices.tablestore.model.StreamRecord;
import com.alicloud.openservices.tablestore.model.tunnel.ChannelInfo;
import com.alicloud.openservices.tablestore.model.tunnel.ChannelStatus;
import com.alicloud.openservices.tablestore.model.tunnel.CreateTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.CreateTunnelResponse;
import com.alicloud.openservices.tablestore.model.tunnel.DescribeTunnelResponse;
import com.alicloud.openservices.tablestore.model.tunnel.ListTunnelResponse;
import com.alicloud.openservices.tablestore.model.tunnel.StartOffsetFlag;
import com.alicloud.openservices.tablestore.model.tunnel.TunnelInfo;
import com.alicloud.openservices.tablestore.model.tunnel.TunnelStage;
import com.alicloud.openservices.tablestore.model.tunnel.internal.Channel;
import com.alicloud.openservices.tablestore.model.tunnel.internal.CheckpointRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.CheckpointResponse;
import com.alicloud.openservices.tablestore.model.tunnel.internal.ConnectTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.ConnectTunnelResponse;
import com.alicloud.openservices.tablestore.model.tunnel.internal.GetCheckpointResponse;
import com.alicloud.openservices.tablestore.model.tunnel.internal.HeartbeatRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.HeartbeatResponse;
import com.alicloud.openservices.tablestore.model.tunnel.internal.ReadRecordsResponse;
import com.aliyun.ots.thirdparty.com.google.protobuf.ByteString;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.ServerChannel;
import io.tablestorecdc.checkpoint.model.ServerChannelStatus;
import io.tablestorecdc.checkpoint.model.TablestoreCredentials;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.checkpoint.model.TunnelType;
import io.tablestorecdc.checkpoint.tunnel.TunnelException.Kind;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SdkTunnelProxyTest {

    private static final TunnelClientId CLIENT = new TunnelClientId("tid", "cid");
    private static final String SECRET = "Sup3rS3cret-KEY-0001";
    private static final String STS = "STS.Token-Recognisable-9999";

    private final ScriptedSdkTunnelClient sdk = new ScriptedSdkTunnelClient();
    private final TunnelMetrics metrics = new TunnelMetrics();
    private final SdkTunnelProxy proxy =
            new SdkTunnelProxy(
                    sdk,
                    SdkDecodedReads.of(sdk),
                    "test",
                    new TransientRetry(
                            new TunnelRetryPolicy(3, Duration.ZERO, Duration.ZERO),
                            metrics,
                            SecretRedactor.none(),
                            d -> {},
                            () -> 0.0),
                    SecretRedactor.none(),
                    metrics);

    private static TableStoreException serverError(String code) {
        return new TableStoreException(code + " from server", null, code, "req-1", 400);
    }

    @Test
    void describeTunnelTurnsTheSdkAnswerIntoOurTerms() {
        sdk.describe =
                r -> {
                    DescribeTunnelResponse response = new DescribeTunnelResponse(new Response());
                    TunnelInfo info = new TunnelInfo();
                    info.setTunnelId("tid");
                    info.setTunnelName(r.getTunnelName());
                    info.setTableName(r.getTableName());
                    info.setTunnelType(
                            com.alicloud.openservices.tablestore.model.tunnel.TunnelType
                                    .BaseAndStream);
                    info.setStage(TunnelStage.ProcessBaseData);
                    response.setTunnelInfo(info);
                    response.setChannelInfos(
                            List.of(
                                    channelInfo("b1", "BaseData", ChannelStatus.OPEN, "cid", 5L),
                                    channelInfo("s1", "Stream", ChannelStatus.WAIT, "", 0L)));
                    return response;
                };

        TunnelDescription d = proxy.describeTunnel("orders", "cdc");

        assertThat(d.tunnelId()).isEqualTo("tid");
        assertThat(d.tunnelName()).isEqualTo("cdc");
        assertThat(d.tableName()).isEqualTo("orders");
        assertThat(d.type()).isEqualTo(TunnelType.BASE_AND_STREAM);
        assertThat(d.stage()).contains(TunnelDescription.Stage.PROCESS_BASE_DATA);
        assertThat(d.expired()).isFalse();
        assertThat(d.channels())
                .containsExactly(
                        new ServerChannel(
                                "b1",
                                ChannelType.BASE_DATA,
                                ServerChannelStatus.OPEN,
                                Optional.of("cid"),
                                5L),
                        new ServerChannel(
                                "s1",
                                ChannelType.STREAM,
                                ServerChannelStatus.WAIT,
                                Optional.empty(),
                                0L));
    }

    private static ChannelInfo channelInfo(
            String id, String type, ChannelStatus status, String client, long consumedAt) {
        ChannelInfo info = new ChannelInfo();
        info.setChannelId(id);
        info.setChannelType(
                com.alicloud.openservices.tablestore.model.tunnel.ChannelType.valueOf(type));
        info.setChannelStatus(status);
        info.setClientId(client);
        info.setChannelConsumePoint(new Date(consumedAt));
        return info;
    }

    @Test
    void aMissingTunnelIsNotFound() {
        sdk.describe =
                r -> {
                    throw serverError("OTSObjectNotExist");
                };

        assertThatThrownBy(() -> proxy.describeTunnel("orders", "cdc"))
                .isInstanceOfSatisfying(
                        TunnelException.class, e -> assertThat(e.kind()).isEqualTo(Kind.NOT_FOUND))
                .hasMessageContaining("tunnel 'cdc' of table 'orders'");
    }

    @Test
    void aParameterErrorForATunnelTheTableDoesNotListIsNotFound() {
        sdk.describe =
                r -> {
                    throw serverError("OTSParameterInvalid");
                };
        sdk.list = r -> tunnelList(r.getTableName(), "other");

        assertThatThrownBy(() -> proxy.describeTunnel("orders", "cdc"))
                .isInstanceOfSatisfying(
                        TunnelException.class,
                        e -> {
                            assertThat(e.kind()).isEqualTo(Kind.NOT_FOUND);
                            assertThat(e.errorCode()).contains("OTSParameterInvalid");
                        })
                .hasMessageContaining("tunnel 'cdc' of table 'orders' does not exist");
    }

    @Test
    void aParameterErrorForAListedTunnelStaysInvalid() {
        sdk.describe =
                r -> {
                    throw serverError("OTSParameterInvalid");
                };
        sdk.list = r -> tunnelList(r.getTableName(), "cdc");

        assertThatThrownBy(() -> proxy.describeTunnel("orders", "cdc"))
                .isInstanceOfSatisfying(
                        TunnelException.class, e -> assertThat(e.kind()).isEqualTo(Kind.INVALID));
    }

    @Test
    void aParameterErrorWhenTheTableCannotBeListedIsNotFound() {
        sdk.describe =
                r -> {
                    throw serverError("OTSParameterInvalid");
                };
        sdk.list =
                r -> {
                    throw serverError("OTSParameterInvalid");
                };

        assertThatThrownBy(() -> proxy.describeTunnel("orders", "cdc"))
                .isInstanceOfSatisfying(
                        TunnelException.class, e -> assertThat(e.kind()).isEqualTo(Kind.NOT_FOUND));
    }

    private static ListTunnelResponse tunnelList(String table, String tunnelName) {
        ListTunnelResponse response = new ListTunnelResponse(new Response());
        TunnelInfo info = new TunnelInfo();
        info.setTunnelId("tid");
        info.setTunnelName(tunnelName);
        info.setTableName(table);
        response.setTunnelInfos(List.of(info));
        return response;
    }

    @Test
    void createTunnelSendsTheStartAndEndInMilliseconds() {
        List<CreateTunnelRequest> sent = new ArrayList<>();
        sdk.create =
                r -> {
                    sent.add(r);
                    CreateTunnelResponse response = new CreateTunnelResponse(new Response());
                    response.setTunnelId("new-id");
                    return response;
                };
        Instant start = Instant.ofEpochMilli(1_700_000_000_000L);

        String id =
                proxy.createTunnel(
                        "orders",
                        "cdc",
                        TunnelType.STREAM,
                        TunnelStart.at(start).until(start.plusSeconds(60)));
        proxy.createTunnel("orders", "cdc2", TunnelType.BASE_AND_STREAM, TunnelStart.earliest());
        proxy.createTunnel("orders", "cdc3", TunnelType.BASE_DATA, TunnelStart.latest());

        assertThat(id).isEqualTo("new-id");
        assertThat(sent.get(0).getStreamTunnelConfig().getStartOffset())
                .isEqualTo(1_700_000_000_000L);
        assertThat(sent.get(0).getStreamTunnelConfig().getEndOffset())
                .isEqualTo(1_700_000_060_000L);
        assertThat(sent.get(1).getStreamTunnelConfig().getFlag())
                .isEqualTo(StartOffsetFlag.EARLIEST);
        assertThat(sent.get(1).getStreamTunnelConfig().getStartOffset()).isZero();
        assertThat(sent.get(2).getTunnelType())
                .isEqualTo(com.alicloud.openservices.tablestore.model.tunnel.TunnelType.BaseData);
        assertThat(sent.get(2).getStreamTunnelConfig()).isNull();
    }

    @Test
    void connectSendsTheTagAndTimeoutInSeconds() {
        sdk.connect =
                r -> {
                    ConnectTunnelResponse response = new ConnectTunnelResponse(new Response());
                    response.setClientId("cid-7");
                    return response;
                };

        TunnelClientId id = proxy.connect("tid", "my-query", Duration.ofMinutes(5));

        assertThat(id).isEqualTo(new TunnelClientId("tid", "cid-7"));
        ConnectTunnelRequest sent = (ConnectTunnelRequest) sdk.requests.get(0);
        assertThat(sent.getConfig().getTimeout()).isEqualTo(300);
        assertThat(sent.getConfig().getClientTag()).isEqualTo("my-query");
    }

    @Test
    void heartbeatReportsHeldChannelsAndReturnsTheAssignment() {
        sdk.heartbeat =
                r -> {
                    HeartbeatResponse response = new HeartbeatResponse(new Response());
                    response.setChannels(
                            List.of(
                                    new Channel("c1", 3, ChannelStatus.CLOSING),
                                    new Channel("c2", 1, ChannelStatus.OPEN)));
                    return response;
                };

        List<AssignedChannel> assigned =
                proxy.heartbeat(
                        CLIENT,
                        List.of(
                                new HeldChannel("c1", 2, ServerChannelStatus.OPEN),
                                new HeldChannel("c0", 5, ServerChannelStatus.TERMINATED)));

        HeartbeatRequest sent = (HeartbeatRequest) sdk.requests.get(0);
        assertThat(sent.getTunnelId()).isEqualTo("tid");
        assertThat(sent.getClientId()).isEqualTo("cid");
        assertThat(sent.getChannels())
                .extracting(Channel::getChannelId, Channel::getVersion, Channel::getStatus)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("c1", 2L, ChannelStatus.OPEN),
                        org.assertj.core.groups.Tuple.tuple("c0", 5L, ChannelStatus.TERMINATED));
        assertThat(assigned)
                .containsExactly(
                        new AssignedChannel("c1", 3, ServerChannelStatus.CLOSING),
                        new AssignedChannel("c2", 1, ServerChannelStatus.OPEN));
    }

    @Test
    void heartbeatIsRetriedWhenTheTunnelServerIsUnavailable() {
        int[] calls = {0};
        sdk.heartbeat =
                r -> {
                    if (calls[0]++ == 0) {
                        throw new TableStoreException(
                                "unavailable", null, "OTSTunnelServerUnavailable", "req-2", 503);
                    }
                    return new HeartbeatResponse(new Response());
                };

        assertThat(proxy.heartbeat(CLIENT, List.of())).isEmpty();
        assertThat(metrics.retries()).isEqualTo(1);
    }

    @Test
    void checkpointSendsTheTokenAndSequenceNumber() {
        sdk.checkpoint = r -> new CheckpointResponse(new Response());

        long accepted = proxy.checkpoint(CLIENT, "c1", ChannelPosition.at("tok", 3), 4);

        CheckpointRequest sent = (CheckpointRequest) sdk.requests.get(0);
        assertThat(sent.getCheckpoint()).isEqualTo("tok");
        assertThat(sent.getSequenceNumber()).isEqualTo(4);
        assertThat(accepted).isEqualTo(4);
    }

    @Test
    void aSequenceMismatchRereadsTheCheckpointAndRetriesOnceWithTheNextNumber() {
        List<Long> sentSequences = new ArrayList<>();
        sdk.checkpoint =
                r -> {
                    sentSequences.add(r.getSequenceNumber());
                    if (r.getSequenceNumber() != 8) {
                        throw serverError("OTSSequenceNumberNotMatch");
                    }
                    return new CheckpointResponse(new Response());
                };
        sdk.getCheckpoint = r -> checkpointAnswer("older-token", 7);

        long accepted = proxy.checkpoint(CLIENT, "c1", ChannelPosition.finished(), 2);

        assertThat(accepted).isEqualTo(8);
        assertThat(sentSequences).containsExactly(2L, 8L);
        assertThat(((CheckpointRequest) sdk.requests.get(2)).getCheckpoint()).isEqualTo("finished");
        assertThat(metrics.checkpointResyncs()).isEqualTo(1);
    }

    @Test
    void aMismatchForACheckpointTheServerAlreadyHoldsSucceedsWithoutResending() {
        sdk.checkpoint =
                r -> {
                    throw serverError("OTSSequenceNumberNotMatch");
                };
        sdk.getCheckpoint = r -> checkpointAnswer("tok", 11);

        assertThat(proxy.checkpoint(CLIENT, "c1", ChannelPosition.at("tok"), 5)).isEqualTo(11);
        assertThat(sdk.requests).hasSize(2);
    }

    @Test
    void aFinishedServerCheckpointIsNeverMovedBack() {
        sdk.checkpoint =
                r -> {
                    throw serverError("OTSSequenceNumberNotMatch");
                };
        sdk.getCheckpoint = r -> checkpointAnswer("finished", 11);

        assertThatThrownBy(() -> proxy.checkpoint(CLIENT, "c1", ChannelPosition.at("tok"), 5))
                .isInstanceOfSatisfying(
                        TunnelException.class,
                        e -> assertThat(e.kind()).isEqualTo(Kind.CHECKPOINT_CONFLICT))
                .hasMessageContaining("already finished")
                .hasMessageContaining("only one consumer");
    }

    @Test
    void aSecondMismatchAfterTheResyncIsAConflict() {
        sdk.checkpoint =
                r -> {
                    throw serverError("OTSSequenceNumberNotMatch");
                };
        sdk.getCheckpoint = r -> checkpointAnswer("other", 11);

        assertThatThrownBy(() -> proxy.checkpoint(CLIENT, "c1", ChannelPosition.at("tok"), 5))
                .isInstanceOfSatisfying(
                        TunnelException.class,
                        e -> assertThat(e.kind()).isEqualTo(Kind.CHECKPOINT_CONFLICT));
        assertThat(sdk.requests).hasSize(3);
    }

    @Test
    void getCheckpointReadsFinishedAsAFinishedPosition() {
        sdk.getCheckpoint = r -> checkpointAnswer("finished", 3);

        ServerCheckpoint checkpoint = proxy.getCheckpoint(CLIENT, "c1");

        assertThat(checkpoint.position().isFinished()).isTrue();
        assertThat(checkpoint.nextSequenceNumber()).isEqualTo(4);
    }

    private static GetCheckpointResponse checkpointAnswer(String token, long sequence) {
        GetCheckpointResponse response = new GetCheckpointResponse();
        response.setCheckpoint(token);
        response.setSequenceNumber(sequence);
        return response;
    }

    @Test
    void readRecordsConvertsRecordsAndTheNextPosition() {
        sdk.read =
                r -> {
                    ReadRecordsResponse response = new ReadRecordsResponse();
                    response.setRecords(List.of(deleteOf("k1"), deleteOf("k2")));
                    response.setNextToken(null);
                    response.setMayMoreRecord(true);
                    return response;
                };

        ReadResult result = proxy.readRecords(CLIENT, "c1", "tok");

        assertThat(result.records())
                .extracting(ChangeRecord::channelId, ChangeRecord::action)
                .containsOnly(
                        org.assertj.core.groups.Tuple.tuple("c1", ChangeRecord.Action.DELETE));
        assertThat(result.records()).hasSize(2);
        assertThat(result.isFinished()).isTrue();
        assertThat(result.mayMoreRecord()).isTrue();
    }

    @Test
    void withoutMayMoreRecordTheSdkRuleDecides() {
        ReadRecordsResponse small = new ReadRecordsResponse();
        small.setRecords(List.of(deleteOf("k")));
        small.setNextToken("next");
        small.setMemoizedSerializedSize(1000);
        ReadRecordsResponse big = new ReadRecordsResponse();
        big.setRecords(List.of());
        big.setNextToken("next");
        big.setMemoizedSerializedSize(1024 * 1024);

        ReadResult idle = SdkDecodedReads.toReadResult(small, "c1");
        ReadResult busy = SdkDecodedReads.toReadResult(big, "c1");

        assertThat(idle.mayMoreRecord()).isFalse();
        assertThat(idle.next()).isEqualTo(ChannelPosition.at("next"));
        assertThat(busy.mayMoreRecord()).isTrue();
    }

    @Test
    void readingAFinishedChannelIsRefusedBeforeAnyCall() {
        assertThatThrownBy(() -> proxy.readRecords(CLIENT, "c1", "finished"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("finished");
        assertThat(sdk.requests).isEmpty();
    }

    @Test
    void closeShutsTheSdkClientDown() {
        proxy.close();

        assertThat(sdk.shutDown).isTrue();
    }

    private static StreamRecord deleteOf(String key) {
        StreamRecord record = new StreamRecord();
        record.setRecordType(StreamRecord.RecordType.DELETE);
        record.setPrimaryKey(
                new PrimaryKey(
                        List.of(new PrimaryKeyColumn("k", PrimaryKeyValue.fromString(key)))));
        record.setColumns(List.of());
        return record;
    }

    @Test
    void theRealClientNeverShowsTheSecretOrStsTokenInToStringOrErrors() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        TablestoreEndpoint endpoint =
                new TablestoreEndpoint(
                        "http://127.0.0.1:" + closedPort,
                        "inst",
                        TablestoreCredentials.of("LTAI-id", SECRET, STS));
        TunnelMetrics realMetrics = new TunnelMetrics();
        try (SdkTunnelProxy real =
                SdkTunnelProxy.create(
                        endpoint,
                        new TunnelRetryPolicy(2, Duration.ofMillis(1), Duration.ofMillis(1)),
                        realMetrics)) {
            assertThat(real.toString())
                    .contains("LTAI-id")
                    .contains("127.0.0.1")
                    .doesNotContain(SECRET)
                    .doesNotContain(STS);

            assertThatThrownBy(() -> real.connect("tid", "tag", Duration.ofSeconds(60)))
                    .isInstanceOfSatisfying(
                            TunnelException.class,
                            e -> {
                                assertThat(e.kind()).isEqualTo(Kind.RETRIES_EXHAUSTED);
                                assertNoSecret(e);
                            });
            assertThat(realMetrics.retries()).isEqualTo(1);
        }
    }

    @Test
    void aProxyWithoutStsTokenCanBeBuiltAndClosed() {
        TablestoreEndpoint endpoint =
                new TablestoreEndpoint(
                        "http://127.0.0.1:1", "inst", TablestoreCredentials.of("LTAI-id", SECRET));

        try (SdkTunnelProxy real = SdkTunnelProxy.create(endpoint)) {
            assertThat(real.toString()).doesNotContain(SECRET);
            assertThat(real.metrics().retries()).isZero();
        }
    }

    private static void assertNoSecret(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            assertThat(t.toString()).doesNotContain(SECRET).doesNotContain(STS);
        }
    }

    /**
     * A response that does not say whether more records may follow gets the SDK's rule: more than
     * 500 records or more than 900 KB of message; the message's size is only measured then.
     */
    @Test
    void undecodedResponsesWithoutMayMoreRecordFollowTheSdkRule() {
        assertThat(
                        SdkTunnelProxy.toReadResult(
                                        WireMessages.inPlace(undecoded(500, 10, null)), "c")
                                .mayMoreRecord())
                .isFalse();
        assertThat(
                        SdkTunnelProxy.toReadResult(
                                        WireMessages.inPlace(undecoded(501, 10, null)), "c")
                                .mayMoreRecord())
                .isTrue();
        assertThat(
                        SdkTunnelProxy.toReadResult(
                                        WireMessages.inPlace(undecoded(2, 500 * 1024, null)), "c")
                                .mayMoreRecord())
                .isTrue();
        assertThat(
                        SdkTunnelProxy.toReadResult(
                                        WireMessages.inPlace(undecoded(600, 10, false)), "c")
                                .mayMoreRecord())
                .as("the server's word wins")
                .isFalse();
    }

    /** A message of {@code records} records of {@code bytes} bytes each, left undecoded. */
    private static TunnelServiceApi.ReadRecordsResponse undecoded(
            int records, int bytes, Boolean mayMore) {
        var message = TunnelServiceApi.ReadRecordsResponse.newBuilder().setNextToken("next");
        var record =
                TunnelServiceApi.Record.newBuilder()
                        .setActionType(TunnelServiceApi.ActionType.PUT_ROW)
                        .setRecord(ByteString.copyFrom(new byte[bytes]))
                        .build();
        for (int i = 0; i < records; i++) {
            message.addRecords(record);
        }
        if (mayMore != null) {
            message.setMayMoreRecord(mayMore);
        }
        return message.build();
    }
}
