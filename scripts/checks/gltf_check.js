// Validates one exported .glb with the Khronos glTF validator and checks its instances.
// Usage: node gltf_check.js VALIDATOR_DIR FILE.glb EXPORT_REPORT.json VERIFY_REPORT.json IDS_OUT.json
// Prints the validator's issue counts and every error or warning; fails on any error or
// warning, on an instanced node whose instance count differs from its ids, or on a stage whose
// exported instances differ from the bundle's element count. Writes every instance id, in node
// order, to IDS_OUT.json for the USD check.
'use strict';
const fs = require('fs');
const path = require('path');

const [validatorDir, glbPath, exportPath, verifyPath, idsOut] = process.argv.slice(2);
const validator = require(path.resolve(validatorDir));
const name = path.basename(glbPath);

function glbJson(bytes) {
    const length = bytes.readUInt32LE(12);
    return JSON.parse(bytes.subarray(20, 20 + length).toString('utf8'));
}

function fail(message) {
    console.error(`${name}: ${message}`);
    process.exitCode = 1;
}

async function main() {
    const bytes = fs.readFileSync(glbPath);
    const report = await validator.validateBytes(new Uint8Array(bytes), { uri: name, format: 'glb', maxIssues: 0 });
    const issues = report.issues;
    console.log(`${name}: validator ${report.validatorVersion}: ${issues.numErrors} errors, ` +
        `${issues.numWarnings} warnings, ${issues.numInfos} infos, ${issues.numHints} hints`);
    for (const m of issues.messages.filter((m) => m.severity <= 1)) {
        console.error(`  ${m.severity === 0 ? 'error' : 'warning'} ${m.code} at ${m.pointer}: ${m.message}`);
    }
    if (issues.numErrors > 0 || issues.numWarnings > 0) {
        fail('the validator reports errors or warnings');
    }

    const doc = glbJson(bytes);
    const perStage = new Map();
    const ids = [];
    for (const node of doc.nodes || []) {
        const ext = node.extensions && node.extensions.EXT_mesh_gpu_instancing;
        if (!ext) continue;
        const count = doc.accessors[ext.attributes.TRANSLATION].count;
        for (const attribute of ['ROTATION', 'SCALE', '_ID']) {
            if (doc.accessors[ext.attributes[attribute]].count !== count) {
                fail(`${node.name}: ${attribute} count differs from TRANSLATION's ${count}`);
            }
        }
        if (node.extras.ids.length !== count) {
            fail(`${node.name}: ${count} instances but ${node.extras.ids.length} ids`);
        }
        const key = `${node.extras.recipe}/${node.extras.stage}`;
        perStage.set(key, (perStage.get(key) || 0) + count);
        ids.push(...node.extras.ids);
    }

    const exported = JSON.parse(fs.readFileSync(exportPath, 'utf8'));
    if (exported.instances !== ids.length) {
        fail(`the export reports ${exported.instances} instances, the file holds ${ids.length}`);
    }
    const verify = JSON.parse(fs.readFileSync(verifyPath, 'utf8'));
    for (const [key, count] of perStage) {
        const [recipe, stage] = key.split('/');
        const product = verify.products.find((p) => p.recipe === recipe && String(p.stage) === stage);
        if (!product) {
            fail(`stage ${key} is not in the bundle`);
        } else if (product.elements !== count) {
            fail(`stage ${key}: ${count} instances, the bundle has ${product.elements} placements`);
        }
    }
    console.log(`${name}: ${ids.length} instances in ${perStage.size} stages match the bundle`);
    fs.writeFileSync(idsOut, JSON.stringify(ids));
}

main().catch((error) => {
    console.error(`${name}: ${error.stack || error}`);
    process.exit(1);
});
