{{/*
One Tidepool service: ServiceAccount, Deployment (two replicas; controllers elect a leader
through a Lease in the release namespace), a Service for its gRPC and HTTP ports, a
PodDisruptionBudget, and a NetworkPolicy that admits gRPC only from the services that call
this one. Values: see any service chart's values.yaml and values.schema.json.

A chart using these defines "<chart name>.args": its own command-line flags, one list item
per line.
*/}}

{{- define "tidepool.name" -}}
{{- .Values.nameOverride | default .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "tidepool.labels" -}}
app.kubernetes.io/name: {{ include "tidepool.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/part-of: tidepool
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "tidepool.selectorLabels" -}}
app.kubernetes.io/name: {{ include "tidepool.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* global.image.* (set once in the umbrella chart) fills what image.* leaves empty. */}}
{{- define "tidepool.globalImage" -}}
{{- $global := .Values.global | default dict -}}
{{- toYaml ($global.image | default dict) -}}
{{- end -}}

{{- define "tidepool.image" -}}
{{- $global := include "tidepool.globalImage" . | fromYaml -}}
{{- $registry := $global.registry | default "ghcr.io/tidepool" -}}
{{- $repository := .Values.image.repository | default (printf "%s/%s" $registry .Chart.Name) -}}
{{- $tag := .Values.image.tag | default $global.tag | default .Chart.AppVersion -}}
{{- printf "%s:%s" $repository $tag -}}
{{- end -}}

{{- define "tidepool.imagePullPolicy" -}}
{{- $global := include "tidepool.globalImage" . | fromYaml -}}
{{- .Values.image.pullPolicy | default $global.pullPolicy | default "IfNotPresent" -}}
{{- end -}}

{{/* host:port of another Tidepool service's gRPC server: the given address, else that
service's Service in this release's namespace (its chart's default port). */}}
{{- define "tidepool.serviceAddress" -}}
{{- .address | default (printf "%s.%s.svc:50051" .service .root.Release.Namespace) -}}
{{- end -}}

{{/* "<namespace>/<name>" of the SlurmCluster served: slurmCluster, else global.slurmCluster. */}}
{{- define "tidepool.slurmCluster" -}}
{{- $global := .Values.global | default dict -}}
{{- $cluster := .Values.slurmCluster | default $global.slurmCluster -}}
{{- required (printf "%s needs the SlurmCluster it serves: set slurmCluster (or global.slurmCluster in the tidepool chart) to <namespace>/<name>" .Chart.Name) $cluster -}}
{{- end -}}

{{/* The Secret with this service's gRPC identity (ca.crt, tls.crt, tls.key). */}}
{{- define "tidepool.grpcTlsSecret" -}}
{{- .Values.grpcTls.secretName | default (printf "tidepool-grpc-%s" .Chart.Name) -}}
{{- end -}}

{{- define "tidepool.serviceAccount" -}}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: tidepool-{{ include "tidepool.name" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "tidepool.labels" . | nindent 4 }}
{{- end -}}

{{- define "tidepool.service" -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "tidepool.name" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "tidepool.labels" . | nindent 4 }}
spec:
  selector:
    {{- include "tidepool.selectorLabels" . | nindent 4 }}
  ports:
    - {name: grpc, port: {{ .Values.ports.grpc }}, targetPort: grpc}
    - {name: http, port: {{ .Values.ports.http }}, targetPort: http}
{{- end -}}

{{- define "tidepool.podDisruptionBudget" -}}
{{- if gt (int .Values.replicas) 1 }}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "tidepool.name" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "tidepool.labels" . | nindent 4 }}
spec:
  maxUnavailable: 1
  selector:
    matchLabels:
      {{- include "tidepool.selectorLabels" . | nindent 6 }}
{{- end }}
{{- end -}}

{{/* Ingress: the HTTP port (probes, /metrics) from anywhere; gRPC only from the pods of
networkPolicy.grpcClients (services of the same release namespace, and of each namespace in
networkPolicy.grpcClientNamespaces: a caller installed elsewhere). Each peer names both the
namespace and the pods (one entry, so both must match). Egress is not limited: the API
server's and slurmrestd's addresses are the cluster's. */}}
{{- define "tidepool.networkPolicy" -}}
{{- if .Values.networkPolicy.enabled }}
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ include "tidepool.name" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "tidepool.labels" . | nindent 4 }}
spec:
  podSelector:
    matchLabels:
      {{- include "tidepool.selectorLabels" . | nindent 6 }}
  policyTypes: [Ingress]
  ingress:
    - ports: [{port: http, protocol: TCP}]
    {{- with .Values.networkPolicy.grpcClients }}
    - ports: [{port: grpc, protocol: TCP}]
      from:
        {{- range $client := . }}
        - podSelector:
            matchLabels:
              app.kubernetes.io/name: {{ $client }}
              app.kubernetes.io/part-of: tidepool
        {{- range $namespace := $.Values.networkPolicy.grpcClientNamespaces }}
        - namespaceSelector:
            matchLabels:
              kubernetes.io/metadata.name: {{ $namespace }}
          podSelector:
            matchLabels:
              app.kubernetes.io/name: {{ $client }}
              app.kubernetes.io/part-of: tidepool
        {{- end }}
        {{- end }}
    {{- end }}
{{- end }}
{{- end -}}

{{- define "tidepool.deployment" -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "tidepool.name" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "tidepool.labels" . | nindent 4 }}
spec:
  replicas: {{ .Values.replicas }}
  selector:
    matchLabels:
      {{- include "tidepool.selectorLabels" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "tidepool.labels" . | nindent 8 }}
      annotations:
        prometheus.io/scrape: "true"
        prometheus.io/port: {{ .Values.ports.http | quote }}
        prometheus.io/path: /metrics
    spec:
      serviceAccountName: tidepool-{{ include "tidepool.name" . }}
      terminationGracePeriodSeconds: {{ add .Values.shutdownTimeoutSeconds 10 }}
      securityContext:
        runAsNonRoot: true
        runAsUser: 65532
        runAsGroup: 65532
        # The gRPC key's group: its Secret volume is mode 0440, readable through the group.
        fsGroup: 65532
        seccompProfile: {type: RuntimeDefault}
      {{- with .Values.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- if .Values.affinity }}
      affinity:
        {{- toYaml .Values.affinity | nindent 8 }}
      {{- else }}
      # The replicas on different Nodes where there are several: a Node lost takes one.
      affinity:
        podAntiAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
            - weight: 100
              podAffinityTerm:
                topologyKey: kubernetes.io/hostname
                labelSelector:
                  matchLabels:
                    {{- include "tidepool.selectorLabels" . | nindent 20 }}
      {{- end }}
      containers:
        - name: {{ include "tidepool.name" . }}
          image: {{ include "tidepool.image" . | quote }}
          imagePullPolicy: {{ include "tidepool.imagePullPolicy" . }}
          args:
            - --listen_address=0.0.0.0
            - --grpc_port={{ .Values.ports.grpc }}
            - --http_port={{ .Values.ports.http }}
            - --log_level={{ .Values.logLevel }}
            - --shutdown_timeout={{ .Values.shutdownTimeoutSeconds }}s
            {{- if .Values.grpcTls.enabled }}
            - --grpc_tls_dir=/etc/tidepool/grpc-tls
            {{- end }}
            {{- include (printf "%s.args" .Chart.Name) . | nindent 12 }}
            {{- range .Values.extraArgs }}
            - {{ . | quote }}
            {{- end }}
          env:
            # The leader-election identity: which pod holds a Lease.
            - name: POD_NAME
              valueFrom: {fieldRef: {fieldPath: metadata.name}}
          ports:
            - {name: grpc, containerPort: {{ .Values.ports.grpc }}}
            - {name: http, containerPort: {{ .Values.ports.http }}}
          livenessProbe:
            httpGet: {path: /healthz, port: http}
            periodSeconds: 10
          readinessProbe:
            httpGet: {path: /readyz, port: http}
            periodSeconds: 5
          resources:
            {{- toYaml .Values.resources | nindent 12 }}
          securityContext:
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
            capabilities: {drop: [ALL]}
          {{- if .Values.grpcTls.enabled }}
          volumeMounts:
            - {name: grpc-tls, mountPath: /etc/tidepool/grpc-tls, readOnly: true}
          {{- end }}
      {{- if .Values.grpcTls.enabled }}
      volumes:
        # Made by the tidepool chart, by cert-manager (a Certificate whose secretName is
        # this, with the service's name as its DNS name) or by hand: ca.crt, tls.crt, tls.key.
        - name: grpc-tls
          secret:
            secretName: {{ include "tidepool.grpcTlsSecret" . }}
            defaultMode: 0440
      {{- end }}
{{- end -}}

{{/* Everything a service chart installs besides its RBAC. */}}
{{- define "tidepool.workload" -}}
{{ include "tidepool.serviceAccount" . }}
---
{{ include "tidepool.deployment" . }}
---
{{ include "tidepool.service" . }}
{{- with include "tidepool.podDisruptionBudget" . }}
---
{{- . }}
{{- end }}
{{- with include "tidepool.networkPolicy" . }}
---
{{- . }}
{{- end }}
{{- end -}}
