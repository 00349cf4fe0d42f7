// Package ufm applies a fabric's partitions through NVIDIA UFM Enterprise's PKey REST API, for
// fabrics where UFM runs the subnet manager and owns the partitions (a partitions.conf pushed
// over SSH would be overwritten or never read there). Client speaks the API; Target implements
// partition.Target over it.
//
// Sources (collected with quotes in the project's reference/wave4-facts.md section 1): the UFM
// Enterprise REST API guide "PKey GUIDs Rest API" (v6.22.1 / Latest) for paths and bodies; the
// UFM user manual "Authentication Methods" for the /ufmRest (basic) and /ufmRestV3 (token)
// prefixes; Mellanox/ufm_sdk_3.0 utils/ufm_rest_client.py for the token header
// ("Authorization: Basic <token>"); Mellanox/ib-kubernetes pkg/sm/plugins/ufm/ufm.go for the
// request bodies and the 15-bit P_Key rule (membership is never the 0x8000 bit); and
// NVIDIA/ncx-infra-controller-core ufmclient/mod.rs for the response shapes and quirks (answers
// keyed by lower-case unpadded pkey, a 200 with {} for a missing PKey, guids_data and qos_conf
// not combinable on the list).
//
// The package knows nothing of Terraform. Credentials are never written into errors or logs.
package ufm
