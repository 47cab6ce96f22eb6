package io.tablestorecdc.checkpoint.tunnel;

import com.alicloud.openservices.tablestore.ClientConfiguration;
import com.alicloud.openservices.tablestore.ClientException;
import com.alicloud.openservices.tablestore.core.OperationLauncher;
import com.alicloud.openservices.tablestore.core.TraceLogger;
import com.alicloud.openservices.tablestore.core.auth.CredentialsProvider;
import com.alicloud.openservices.tablestore.core.http.AsyncServiceClient;
import com.alicloud.openservices.tablestore.core.http.OTSUri;
import com.alicloud.openservices.tablestore.core.http.ResponseConsumer;
import com.alicloud.openservices.tablestore.core.protocol.ResultParserFactory;
import com.alicloud.openservices.tablestore.core.protocol.TunnelProtocolBuilder;
import com.alicloud.openservices.tablestore.core.protocol.TunnelServiceApi;
import com.alicloud.openservices.tablestore.model.NoRetryStrategy;
import com.alicloud.openservices.tablestore.model.OperationNames;
import com.alicloud.openservices.tablestore.model.tunnel.internal.ReadRecordsRequest;
import com.aliyun.ots.thirdparty.org.apache.http.concurrent.FutureCallback;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The tunnel's {@code readrecords} call through the SDK's own HTTP client, signing and error
 * handling, but stopping at the response message: the records stay PlainBuffer bytes, which {@link
 * PlainBufferRecordPage} decodes on the reader's thread straight into the engine's row, instead of
 * the SDK building a {@code StreamRecord} object graph per record on its I/O thread that the reader
 * then copies again.
 *
 * <p>Everything on the wire is the SDK's: {@code TunnelProtocolBuilder} writes the request, the
 * SDK's {@code OperationLauncher} sends and signs it with the client's credentials and
 * configuration, and its response handlers check status, checksums and errors. Failures surface as
 * the same {@code TableStoreException} / {@code ClientException} the SDK's {@code TunnelClient}
 * throws, so {@link TransientRetry} classifies them alike.
 */
final class RawReadRecords {

    private final OTSUri uri;
    private final String instanceName;
    private final AsyncServiceClient http;
    private final CredentialsProvider credentials;
    private final ClientConfiguration config;

    RawReadRecords(
            String endpoint,
            String instanceName,
            AsyncServiceClient http,
            CredentialsProvider credentials,
            ClientConfiguration config) {
        this.uri = new OTSUri(endpoint, OperationNames.OP_READRECORDS);
        this.instanceName = instanceName;
        this.http = http;
        this.credentials = credentials;
        this.config = config;
    }

    /** One {@code readrecords} response, its records undecoded. */
    TunnelServiceApi.ReadRecordsResponse read(ReadRecordsRequest request) {
        CompletableFuture<TunnelServiceApi.ReadRecordsResponse> result = new CompletableFuture<>();
        new Launcher(request).fire(request, new Completion(result));
        try {
            return result.get(
                    config.getSyncClientWaitFutureTimeoutInMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ClientException("The thread was interrupted: " + e.getMessage());
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new ClientException("The thread was aborted", cause);
        } catch (TimeoutException e) {
            throw new ClientException("Wait future timeout", e);
        }
    }

    private final class Launcher
            extends OperationLauncher<ReadRecordsRequest, TunnelServiceApi.ReadRecordsResponse> {

        Launcher(ReadRecordsRequest request) {
            super(instanceName, http, credentials, config, request);
        }

        @Override
        public void fire(
                ReadRecordsRequest request,
                FutureCallback<TunnelServiceApi.ReadRecordsResponse> callback) {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            TraceLogger tracer =
                    new TraceLogger(
                            new UUID(random.nextLong(), random.nextLong()).toString(),
                            config.getTimeThresholdOfTraceLogger());
            asyncInvokePost(
                    uri,
                    null,
                    TunnelProtocolBuilder.buildReadRecordsRequest(request),
                    tracer,
                    new MessageConsumer(tracer),
                    callback);
        }
    }

    /** Parses the response into its protobuf message and no further. */
    private static final class MessageConsumer
            extends ResponseConsumer<TunnelServiceApi.ReadRecordsResponse> {

        MessageConsumer(TraceLogger tracer) {
            super(
                    ResultParserFactory.createFactory()
                            .createProtocolBufferResultParser(
                                    TunnelServiceApi.ReadRecordsResponse.getDefaultInstance(),
                                    tracer.getTraceId()),
                    tracer,
                    new NoRetryStrategy(),
                    null);
        }

        @Override
        protected TunnelServiceApi.ReadRecordsResponse parseResult() throws Exception {
            return (TunnelServiceApi.ReadRecordsResponse) getResponseContentWithMeta().getMessage();
        }
    }

    /** Completes the future with the response or with the exception the SDK would throw. */
    private record Completion(CompletableFuture<TunnelServiceApi.ReadRecordsResponse> result)
            implements FutureCallback<TunnelServiceApi.ReadRecordsResponse> {

        @Override
        public void completed(TunnelServiceApi.ReadRecordsResponse response) {
            result.complete(response);
        }

        @Override
        public void failed(Exception e) {
            result.completeExceptionally(
                    e instanceof RuntimeException
                            ? e
                            : new ClientException("Unexpected error: " + e, e));
        }

        @Override
        public void cancelled() {
            result.completeExceptionally(new ClientException("request cancelled"));
        }
    }
}
