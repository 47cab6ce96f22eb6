package io.tablestorecdc.checkpoint.table;

import com.alicloud.openservices.tablestore.ClientConfiguration;
import com.alicloud.openservices.tablestore.ClientException;
import com.alicloud.openservices.tablestore.TableStoreCallback;
import com.alicloud.openservices.tablestore.core.AsyncGetRangeCompletion;
import com.alicloud.openservices.tablestore.core.CallbackImpledFuture;
import com.alicloud.openservices.tablestore.core.ClientResources;
import com.alicloud.openservices.tablestore.core.OperationLauncher;
import com.alicloud.openservices.tablestore.core.TraceLogger;
import com.alicloud.openservices.tablestore.core.auth.CredentialsProvider;
import com.alicloud.openservices.tablestore.core.http.OTSUri;
import com.alicloud.openservices.tablestore.core.http.ResponseConsumer;
import com.alicloud.openservices.tablestore.core.protocol.OTSProtocolBuilder;
import com.alicloud.openservices.tablestore.core.protocol.OTSProtocolParser;
import com.alicloud.openservices.tablestore.core.protocol.OtsInternalApi;
import com.alicloud.openservices.tablestore.core.protocol.ResultParserFactory;
import com.alicloud.openservices.tablestore.model.ConsumedCapacity;
import com.alicloud.openservices.tablestore.model.GetRangeRequest;
import com.alicloud.openservices.tablestore.model.GetRangeResponse;
import com.alicloud.openservices.tablestore.model.OperationNames;
import com.alicloud.openservices.tablestore.model.RetryStrategy;
import com.aliyun.ots.thirdparty.org.apache.http.concurrent.FutureCallback;
import io.tablestorecdc.checkpoint.tunnel.PlainBufferRows;
import java.util.ArrayList;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * GetRange as the SDK's {@code SyncClient} sends it (its request builder, HTTP client, signing,
 * retry strategy, response checks, and its merging of a wide row the service returned in parts),
 * with the response's rows decoded by {@link PlainBufferRows} instead of the SDK's decoder: the
 * same rows, for much less CPU on the reading side. Uses the resources of the client it is built
 * beside, so it adds no thread and no connection.
 */
final class RawGetRange {

    private final OTSUri uri;
    private final String instanceName;
    private final ClientResources resources;
    private final CredentialsProvider credentials;
    private final ClientConfiguration config;

    RawGetRange(
            String endpoint,
            String instanceName,
            ClientResources resources,
            CredentialsProvider credentials,
            ClientConfiguration config) {
        this.uri = new OTSUri(endpoint, OperationNames.OP_GET_RANGE);
        this.instanceName = instanceName;
        this.resources = resources;
        this.credentials = credentials;
        this.config = config;
    }

    /** One GetRange, as {@code SyncClient#getRange} answers it, or its exception. */
    GetRangeResponse getRange(GetRangeRequest request) {
        CallbackImpledFuture<GetRangeRequest, GetRangeResponse> result =
                new CallbackImpledFuture<>();
        send(request, result);
        try {
            return result.get(
                    config.getSyncClientWaitFutureTimeoutInMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ClientException("The thread was interrupted: " + e.getMessage());
        } catch (ExecutionException e) {
            throw new ClientException("The thread was aborted", e);
        } catch (TimeoutException e) {
            throw new ClientException("Wait future timeout", e);
        }
    }

    /**
     * One GetRange, answered on the client's callback thread: the response, or the exception {@link
     * #getRange} would throw (the SDK's own, with its retries done, or its wait timeout).
     */
    CompletableFuture<GetRangeResponse> getRangeAsync(GetRangeRequest request) {
        CompletableFuture<GetRangeResponse> result = new CompletableFuture<>();
        send(
                request,
                new TableStoreCallback<>() {
                    @Override
                    public void onCompleted(GetRangeRequest sent, GetRangeResponse response) {
                        result.complete(response);
                    }

                    @Override
                    public void onFailed(GetRangeRequest sent, Exception e) {
                        result.completeExceptionally(e);
                    }
                });
        CompletableFuture<GetRangeResponse> answer = new CompletableFuture<>();
        result.orTimeout(config.getSyncClientWaitFutureTimeoutInMillis(), TimeUnit.MILLISECONDS)
                .whenComplete(
                        (response, e) -> {
                            if (e == null) {
                                answer.complete(response);
                            } else if (e instanceof TimeoutException) {
                                answer.completeExceptionally(
                                        new ClientException("Wait future timeout", e));
                            } else {
                                answer.completeExceptionally(e);
                            }
                        });
        return answer;
    }

    private void send(
            GetRangeRequest request, TableStoreCallback<GetRangeRequest, GetRangeResponse> done) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        TraceLogger tracer =
                new TraceLogger(
                        new UUID(random.nextLong(), random.nextLong()).toString(),
                        config.getTimeThresholdOfTraceLogger());
        RetryStrategy retry = config.getRetryStrategy().clone();
        Launcher launcher = new Launcher(request, tracer, retry);
        AsyncGetRangeCompletion completion =
                new AsyncGetRangeCompletion(
                        launcher,
                        request,
                        tracer,
                        resources.getCallbackExecutor(),
                        retry,
                        resources.getRetryExecutor());
        completion.watchBy(done);
        launcher.fire(request, completion);
    }

    private final class Launcher extends OperationLauncher<GetRangeRequest, GetRangeResponse> {
        private final TraceLogger tracer;
        private final RetryStrategy retry;

        Launcher(GetRangeRequest request, TraceLogger tracer, RetryStrategy retry) {
            super(instanceName, resources.getHttpClient(), credentials, config, request);
            this.tracer = tracer;
            this.retry = retry;
        }

        @Override
        public void fire(GetRangeRequest request, FutureCallback<GetRangeResponse> callback) {
            asyncInvokePost(
                    uri,
                    null,
                    OTSProtocolBuilder.buildGetRangeRequest(request),
                    tracer,
                    new RowsConsumer(tracer, retry),
                    callback);
        }
    }

    /** The SDK's response handling, with the rows decoded by {@link PlainBufferRows}. */
    private static final class RowsConsumer extends ResponseConsumer<GetRangeResponse> {

        RowsConsumer(TraceLogger tracer, RetryStrategy retry) {
            super(
                    ResultParserFactory.createFactory()
                            .createProtocolBufferResultParser(
                                    OtsInternalApi.GetRangeResponse.getDefaultInstance(),
                                    tracer.getTraceId()),
                    tracer,
                    retry,
                    null);
        }

        @Override
        protected GetRangeResponse parseResult() throws Exception {
            var content = getResponseContentWithMeta();
            OtsInternalApi.GetRangeResponse message =
                    (OtsInternalApi.GetRangeResponse) content.getMessage();
            GetRangeResponse response =
                    new GetRangeResponse(
                            content.getMeta(),
                            new ConsumedCapacity(
                                    OTSProtocolParser.parseCapacityUnit(
                                            message.getConsumed().getCapacityUnit())));
            response.setBodyBytes(message.getSerializedSize());
            PlainBufferRows rows = new PlainBufferRows();
            response.setNextStartPrimaryKey(
                    message.hasNextStartPrimaryKey()
                            ? rows.readKey(message.getNextStartPrimaryKey())
                            : null);
            response.setRows(
                    message.getRows().isEmpty() ? new ArrayList<>() : rows.read(message.getRows()));
            if (message.hasNextToken()) {
                response.setNextToken(message.getNextToken().toByteArray());
            }
            return response;
        }
    }
}
