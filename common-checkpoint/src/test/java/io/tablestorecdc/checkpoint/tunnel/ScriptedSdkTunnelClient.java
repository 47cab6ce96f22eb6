package io.tablestorecdc.checkpoint.tunnel;

import com.alicloud.openservices.tablestore.TunnelClientInterface;
import com.alicloud.openservices.tablestore.model.tunnel.CreateTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.CreateTunnelResponse;
import com.alicloud.openservices.tablestore.model.tunnel.DeleteTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.DeleteTunnelResponse;
import com.alicloud.openservices.tablestore.model.tunnel.DescribeTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.DescribeTunnelResponse;
import com.alicloud.openservices.tablestore.model.tunnel.ListTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.ListTunnelResponse;
import com.alicloud.openservices.tablestore.model.tunnel.internal.CheckpointRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.CheckpointResponse;
import com.alicloud.openservices.tablestore.model.tunnel.internal.ConnectTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.ConnectTunnelResponse;
import com.alicloud.openservices.tablestore.model.tunnel.internal.GetCheckpointRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.GetCheckpointResponse;
import com.alicloud.openservices.tablestore.model.tunnel.internal.HeartbeatRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.HeartbeatResponse;
import com.alicloud.openservices.tablestore.model.tunnel.internal.ReadRecordsRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.ReadRecordsResponse;
import com.alicloud.openservices.tablestore.model.tunnel.internal.ShutdownTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.ShutdownTunnelResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The SDK's own {@link TunnelClientInterface} answered by per-method lambdas, recording every
 * request: lets {@link SdkTunnelProxy} be tested against real SDK request/response objects without
 * HTTP. It sits below {@code SdkTunnelProxy}, where no {@link TunnelProxy} exists yet; every test
 * above that interface uses {@code testing.FakeTunnelService} instead.
 */
final class ScriptedSdkTunnelClient implements TunnelClientInterface {

    final List<Object> requests = new ArrayList<>();
    Function<CreateTunnelRequest, CreateTunnelResponse> create = r -> unscripted("createTunnel");
    Function<DescribeTunnelRequest, DescribeTunnelResponse> describe =
            r -> unscripted("describeTunnel");
    Function<ListTunnelRequest, ListTunnelResponse> list = r -> unscripted("listTunnel");
    Function<ConnectTunnelRequest, ConnectTunnelResponse> connect = r -> unscripted("connect");
    Function<HeartbeatRequest, HeartbeatResponse> heartbeat = r -> unscripted("heartbeat");
    Function<GetCheckpointRequest, GetCheckpointResponse> getCheckpoint =
            r -> unscripted("getCheckpoint");
    Function<CheckpointRequest, CheckpointResponse> checkpoint = r -> unscripted("checkpoint");
    Function<ReadRecordsRequest, ReadRecordsResponse> read = r -> unscripted("readRecords");
    Function<ShutdownTunnelRequest, ShutdownTunnelResponse> shutdownTunnel =
            r -> unscripted("shutdown");
    boolean shutDown;

    private static <T> T unscripted(String action) {
        throw new AssertionError("unexpected call of " + action);
    }

    private <Q, A> A answer(Q request, Function<Q, A> handler) {
        requests.add(request);
        return handler.apply(request);
    }

    @Override
    public CreateTunnelResponse createTunnel(CreateTunnelRequest request) {
        return answer(request, create);
    }

    @Override
    public ListTunnelResponse listTunnel(ListTunnelRequest request) {
        return answer(request, list);
    }

    @Override
    public DescribeTunnelResponse describeTunnel(DescribeTunnelRequest request) {
        return answer(request, describe);
    }

    @Override
    public DeleteTunnelResponse deleteTunnel(DeleteTunnelRequest request) {
        return unscripted("deleteTunnel");
    }

    @Override
    public ConnectTunnelResponse connectTunnel(ConnectTunnelRequest request) {
        return answer(request, connect);
    }

    @Override
    public HeartbeatResponse heartbeat(HeartbeatRequest request) {
        return answer(request, heartbeat);
    }

    @Override
    public ShutdownTunnelResponse shutdownTunnel(ShutdownTunnelRequest request) {
        return answer(request, shutdownTunnel);
    }

    @Override
    public GetCheckpointResponse getCheckpoint(GetCheckpointRequest request) {
        return answer(request, getCheckpoint);
    }

    @Override
    public ReadRecordsResponse readRecords(ReadRecordsRequest request) {
        return answer(request, read);
    }

    @Override
    public CheckpointResponse checkpoint(CheckpointRequest request) {
        return answer(request, checkpoint);
    }

    @Override
    public void shutdown() {
        shutDown = true;
    }
}
